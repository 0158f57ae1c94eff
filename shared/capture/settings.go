package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/urlrules"
)

// Settings are the user's choices, kept in the store.
type Settings = api.Settings

// DefaultSettings are what a new installation starts with.
func DefaultSettings() Settings {
	return Settings{
		HeaderPolicy:   "redact",
		PasswordPolicy: "redact",
		WARCVersion:    "0.9",
		CDXDialect:     "pywb-2.6.7",
		Agent:          "webkeep",
		DomainRules:    map[string]string{},
	}
}

const settingsKey = "settings"

// errSettings marks a setting the user must correct.
var errSettings = errors.New("invalid setting")

// validateSettings checks every field of s and names the first one that is wrong.
func validateSettings(s *Settings) error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", errSettings, field, fmt.Sprintf(format, args...))
	}
	switch s.HeaderPolicy {
	case "redact", "keep":
	default:
		return bad("headerPolicy", "%q is not redact or keep", s.HeaderPolicy)
	}
	switch s.PasswordPolicy {
	case "redact", "keep":
	default:
		return bad("passwordPolicy", "%q is not redact or keep", s.PasswordPolicy)
	}
	if s.BodyLimit < 0 {
		return bad("bodyLimit", "%d is negative; 0 means no limit", s.BodyLimit)
	}
	switch s.WARCVersion {
	case "0.9", "1.1":
	default:
		return bad("warcVersion", "%q is not 0.9 or 1.1", s.WARCVersion)
	}
	switch s.CDXDialect {
	case "pywb-2.6.7", "pywb-2.8":
	default:
		return bad("cdxDialect", "%q is not pywb-2.6.7 or pywb-2.8", s.CDXDialect)
	}
	if s.Agent == "" || strings.ContainsAny(s.Agent, " \t/;") {
		return bad("agent", "%q: give a single name token such as webkeep", s.Agent)
	}
	domains := make([]string, 0, len(s.DomainRules))
	for d := range s.DomainRules {
		domains = append(domains, d)
	}
	sort.Strings(domains)
	for _, d := range domains {
		if strings.TrimSpace(s.DomainRules[d]) == "" {
			continue
		}
		if _, err := urlrules.Compile(d, []byte(s.DomainRules[d])); err != nil {
			return bad("domainRules["+d+"]", "%v", err)
		}
	}
	if s.TeamEndpoint != "" {
		u, err := url.Parse(s.TeamEndpoint)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return bad("teamEndpoint", "%q is not an http(s) URL", s.TeamEndpoint)
		}
	}
	switch s.SignWith {
	case "", "browser":
	case "team":
		if s.TeamEndpoint == "" {
			return bad("signWith", "signing with the team's key needs the team archive's endpoint and token")
		}
	default:
		return bad("signWith", "%q is not browser or team", s.SignWith)
	}
	if s.TimestampAuthority != "" {
		u, err := url.Parse(s.TimestampAuthority)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return bad("timestampAuthority", "%q is not an http(s) URL", s.TimestampAuthority)
		}
	}
	return nil
}

// keyRulesByHost keys s's domain rules by host name as the rules see hosts (lower case,
// in Unicode: urlrules.Host), so that a rule written for "BÜCHER.de" or
// "xn--bcher-kva.de" is found for either spelling. It names a key that is no host
// name, or two keys for one name.
func keyRulesByHost(s *Settings) error {
	keyed := make(map[string]string, len(s.DomainRules))
	given := make(map[string]string, len(s.DomainRules))
	for key, src := range s.DomainRules {
		host, _, err := urlrules.Host(key)
		if err != nil {
			return fmt.Errorf("%w: domainRules[%s]: not a host or domain name", errSettings, key)
		}
		if other, ok := given[host]; ok {
			return fmt.Errorf("%w: domainRules[%s]: the same domain as %s", errSettings, key, other)
		}
		keyed[host], given[host] = src, key
	}
	s.DomainRules = keyed
	return nil
}

// publicSettings returns s as the pages see it: the token hidden.
func publicSettings(s Settings) Settings {
	s.TeamTokenSet = s.TeamToken != ""
	s.TeamToken = ""
	s.ClearTeamToken = false
	return s
}

// loadSettings reads the stored settings, or the defaults.
func loadSettings(store Store) Settings {
	s := DefaultSettings()
	if b, err := store.Get(settingsKey); err == nil {
		json.Unmarshal(b, &s)
	}
	if s.DomainRules == nil {
		s.DomainRules = map[string]string{}
	}
	if s.PasswordPolicy == "" {
		s.PasswordPolicy = "redact" // settings saved before there was a choice
	}
	keyRulesByHost(&s) // settings saved before keys were normalized; a bad key stays
	return s
}

// userSettings keeps the user's settings: read by every feature, changed on the
// options page (GET and PUT /api/settings).
type userSettings struct {
	store Store
	// changed is told of settings just saved (the recorder's body limit).
	changed func(Settings)

	mu      sync.Mutex
	current Settings
}

// newUserSettings reads the settings the store keeps, or the defaults.
func newUserSettings(store Store, changed func(Settings)) *userSettings {
	u := &userSettings{store: store, changed: changed, current: loadSettings(store)}
	changed(u.current)
	return u
}

// get returns the current settings.
func (u *userSettings) get() Settings {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.current
}

// teamSet reports whether a team archive and its token are set.
func (u *userSettings) teamSet() bool {
	set := u.get()
	return set.TeamEndpoint != "" && set.TeamToken != ""
}

// update validates and stores new settings, and returns them as the pages see them.
// An empty TeamToken keeps the stored one.
func (u *userSettings) update(next Settings) (Settings, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if next.TeamToken == "" && !next.ClearTeamToken {
		next.TeamToken = u.current.TeamToken
	}
	next.ClearTeamToken = false
	next.TeamTokenSet = false
	if next.PasswordPolicy == "" {
		next.PasswordPolicy = "redact" // a client that does not know the choice
	}
	if next.DomainRules == nil {
		next.DomainRules = map[string]string{}
	}
	if err := keyRulesByHost(&next); err != nil {
		return publicSettings(u.current), err
	}
	if err := validateSettings(&next); err != nil {
		return publicSettings(u.current), err
	}
	b, err := json.Marshal(next)
	if err != nil {
		return publicSettings(u.current), err
	}
	if err := u.store.Put(settingsKey, b); err != nil {
		return publicSettings(u.current), err // the store says which key
	}
	u.current = next
	u.changed(next)
	return publicSettings(next), nil
}

// routes adds the settings: read (the token hidden) and replace.
func (u *userSettings) routes(mux *routeTable) {
	mux.HandleFunc("GET /api/settings", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		writeJSON(w, httpmsg.StatusOK, publicSettings(u.get()))
	})
	mux.HandleFunc("PUT /api/settings", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		next := DefaultSettings()
		if err := readJSON(r.Body, 4<<20, &next); err != nil {
			writeError(w, badRequest(fmt.Errorf("settings: %w", err)))
			return
		}
		saved, err := u.update(next)
		answer(w, httpmsg.StatusOK, saved, badRequest(err))
	})
}

// sensitiveRequest and sensitiveResponse are the headers the redact policy replaces.
var (
	sensitiveRequest  = []string{"Cookie", "Authorization", "Proxy-Authorization"}
	sensitiveResponse = []string{"Set-Cookie"}
)

// redactedValue replaces a sensitive header's value: the header stays, so the record
// still shows that one was sent.
const redactedValue = "[redacted by webkeep]"

// applyPolicy applies the header policy and the body limit to an exchange before it
// is written.
func applyPolicy(ex *recorder.Exchange, s Settings) {
	if s.HeaderPolicy != "keep" {
		ex.ReqHeader = redact(ex.ReqHeader, sensitiveRequest)
		ex.RespHeader = redact(ex.RespHeader, sensitiveResponse)
	}
	if len(ex.ReqBody) > 0 {
		redactPasswords(ex, s.PasswordPolicy != "keep")
	}
	if s.BodyLimit > 0 && int64(len(ex.RespBody)) > s.BodyLimit {
		ex.RespBody = ex.RespBody[:s.BodyLimit]
		ex.RespTruncated = "length"
	}
}

func redact(f recorder.Fields, names []string) recorder.Fields {
	out := make(recorder.Fields, len(f))
	copy(out, f)
	for i, kv := range out {
		for _, n := range names {
			if strings.EqualFold(kv.Name, n) {
				out[i].Value = redactedValue
			}
		}
	}
	return out
}

// redactPasswords finds the password fields of ex's request body (PasswordFields)
// and, with doRedact, replaces their values: the body's Content-Length is then its
// new length, and the Redaction note says what was replaced.
func redactPasswords(ex *recorder.Exchange, doRedact bool) {
	body, found := passwordFields(ex.ReqHeader.Get("Content-Type"), ex.ReqBody, ex.PasswordDOM, doRedact)
	ex.PasswordFields = found
	if !doRedact || len(found) == 0 || bytes.Equal(body, ex.ReqBody) {
		return
	}
	ex.ReqBody = body
	for i, kv := range ex.ReqHeader {
		if strings.EqualFold(kv.Name, "Content-Length") {
			ex.ReqHeader = slices.Clone(ex.ReqHeader)
			ex.ReqHeader[i].Value = strconv.Itoa(len(body))
		}
	}
	ex.Redaction = fmt.Sprintf("the value of the password field%s %s of the request body replaced by %q (option: passwords in form posts, redact); the body's Content-Length is its length after that",
		map[bool]string{true: "s", false: ""}[len(found) > 1], strings.Join(found, ", "), redactedValue)
}
