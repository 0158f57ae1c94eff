package capture

import (
	"fmt"
	"strings"
	"sync"

	"github.com/webkeep/webkeep/shared/urlrules"
)

// rulesMetaKey is the key of a URL database domain's metadata that may hold its
// Snap!-style URL rules, so a team shares them with the database.
const rulesMetaKey = "url-rules"

// domainRules compiles and caches the Snap!-style rules of each registered domain: from
// the options page, else from the URL database's domain metadata.
type domainRules struct {
	mu       sync.Mutex
	compiled map[string]*urlrules.Rules // by domain and source
}

// canonical returns the canonical URL of rawURL and its website key under the rules
// for its registered domain (from the settings, by domain or host, else from fromDB);
// ok is false when no rules apply.
func (d *domainRules) canonical(rawURL string, settings map[string]string, fromDB func(registered string) string) (canonical, website string, ok bool, err error) {
	host, domain, herr := urlrules.Host(rawURL)
	if herr != nil {
		return "", "", false, nil
	}
	// The settings' keys are host names as urlrules.Host gives them (see
	// keyRulesByHost).
	src := settings[domain]
	if strings.TrimSpace(src) == "" {
		src = settings[host]
	}
	if strings.TrimSpace(src) == "" && fromDB != nil {
		src = fromDB(domain)
	}
	if strings.TrimSpace(src) == "" {
		return "", "", false, nil
	}
	rules, err := d.compile(domain, src)
	if err != nil {
		return "", "", false, err
	}
	m, err := rules.Match(rawURL)
	if err != nil || m == nil {
		return "", "", false, err
	}
	return m.Canonical, m.Website, m.Canonical != "", nil
}

func (d *domainRules) compile(domain, src string) (*urlrules.Rules, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := domain + "\x00" + src
	if r, ok := d.compiled[key]; ok {
		return r, nil
	}
	r, err := urlrules.Compile(domain, []byte(src))
	if err != nil {
		return nil, fmt.Errorf("URL rules of %s: %w", domain, err)
	}
	if d.compiled == nil {
		d.compiled = map[string]*urlrules.Rules{}
	}
	d.compiled[key] = r
	return r, nil
}
