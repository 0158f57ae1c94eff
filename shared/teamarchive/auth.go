package teamarchive

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
)

// A Token is one bearer token and the uploader name recorded for what it writes.
type Token struct {
	Name   string
	Secret string
}

// ParseTokens reads a WEBKEEP_TOKENS value: comma-separated entries, each either
// "name:secret" or a bare secret. A bare secret's uploader is "token-" and the first
// 8 hex digits of its SHA-256, so the listing never shows a secret. Blank entries are
// skipped.
func ParseTokens(s string) []Token {
	var tokens []Token
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if name, secret, ok := strings.Cut(entry, ":"); ok && name != "" && secret != "" {
			tokens = append(tokens, Token{Name: name, Secret: secret})
			continue
		}
		sum := sha256.Sum256([]byte(entry))
		tokens = append(tokens, Token{Name: "token-" + hex.EncodeToString(sum[:4]), Secret: entry})
	}
	return tokens
}

// authenticate returns the uploader name of the request's bearer token, and whether
// a token was presented at all. Every configured secret is compared in constant
// time over SHA-256 digests, so neither the match nor the length leaks by timing.
func authenticate(tokens []Token, r *http.Request) (name string, presented bool) {
	scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return "", true
	}
	got := sha256.Sum256([]byte(secret))
	for _, t := range tokens {
		want := sha256.Sum256([]byte(t.Secret))
		if subtle.ConstantTimeCompare(got[:], want[:]) == 1 && name == "" {
			name = t.Name
		}
	}
	return name, true
}
