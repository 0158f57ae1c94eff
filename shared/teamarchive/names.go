package teamarchive

import (
	"errors"
	"fmt"
	"strings"
)

// Limits on names.
const (
	MaxNameLength   = 128 // bytes of a bundle name
	maxDomainLength = 253
)

// ErrName is returned (wrapped with the name) for a bundle or domain file name
// that ValidName or ValidDomainFile rejects.
var ErrName = errors.New("teamarchive: invalid name")

// ValidName reports whether name may name a bundle: 1 to MaxNameLength bytes of
// ASCII letters, digits, '.', '_' and '-', starting with a letter or digit, not
// ending in '.', without "..". Such a name is the same in a URL path, an R2 key and a
// file system, so it cannot traverse or alias anything.
func ValidName(name string) error {
	if name == "" || len(name) > MaxNameLength {
		return fmt.Errorf("%w: %q: length must be 1 to %d bytes", ErrName, clip(name), MaxNameLength)
	}
	if !isAlnum(name[0]) {
		return fmt.Errorf("%w: %q: must start with a letter or digit", ErrName, clip(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("%w: %q: byte %d (%q) is not a letter, digit, '.', '_' or '-'", ErrName, clip(name), i, c)
		}
	}
	if strings.Contains(name, "..") || strings.HasSuffix(name, ".") {
		return fmt.Errorf("%w: %q: must not contain \"..\" or end in '.'", ErrName, clip(name))
	}
	return nil
}

// ValidDomainFile checks a URL database file name, "<domain>.yaml", and returns the
// domain: lower-case DNS labels of letters, digits and '-' (not at either end of a
// label), joined by dots.
func ValidDomainFile(file string) (string, error) {
	domain, ok := strings.CutSuffix(file, ".yaml")
	if !ok || domain == "" || len(domain) > maxDomainLength {
		return "", fmt.Errorf("%w: %q: want <domain>.yaml", ErrName, clip(file))
	}
	for label := range strings.SplitSeq(domain, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "", fmt.Errorf("%w: %q: bad DNS label %q", ErrName, clip(file), clip(label))
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", fmt.Errorf("%w: %q: byte %q is not a lower-case letter, digit or '-'", ErrName, clip(file), c)
			}
		}
	}
	return domain, nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// clip keeps error messages short when a hostile name is long.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
