package teamarchive

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"time"

	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/waczauth"
)

// The team's signature (wacz-auth 0.1.0): the archive holds the team's signing key
// (Config.Signer, a Worker secret) and signs the hash of a WACZ's
// datapackage.json for a member, as authsign's /sign does, so that a WACZ made in
// any member's browser, or by the command line, carries the team's signature
// instead of a browser's anonymous one. With a certificate (Config.SigningCert)
// the signature is in the domain-name form; with a timestamp authority
// (Config.Timestamper) it is stamped, and so are the notary log's tree heads.
//
//	GET  /api/signing   the team's key: public key, fingerprint, certificate, form
//	POST /api/sign      {"hash": "sha256:<hex>", "created": "<RFC 3339>"} →
//	                    the signedData of datapackage-digest.json (a write token)

// teamSigning is the Server's signing authority and what was wrong with its setup.
type teamSigning struct {
	authority *wacz.KeyAuthority // nil: the archive signs nothing
	err       error              // the key or certificate given is unusable
}

func newTeamSigning(cfg Config) teamSigning {
	if cfg.Signer == nil {
		if cfg.SigningKeyError != nil {
			return teamSigning{err: fmt.Errorf("the signing key (WEBKEEP_SIGNING_KEY): %w", cfg.SigningKeyError)}
		}
		if len(cfg.SigningCert) > 0 {
			return teamSigning{err: errors.New("a certificate (WEBKEEP_SIGNING_CERT) is configured but no signing key (WEBKEEP_SIGNING_KEY)")}
		}
		return teamSigning{}
	}
	if len(cfg.SigningCert) == 0 {
		return teamSigning{authority: &wacz.KeyAuthority{Signer: cfg.Signer, Software: "webkeep team archive", Timestamper: cfg.Timestamper}}
	}
	a, err := waczauth.NewDomainAuthority(cfg.Signer, cfg.SigningCert, cfg.Timestamper, "webkeep team archive")
	if err != nil {
		cfg.Logf("teamarchive: signing: the certificate (WEBKEEP_SIGNING_CERT) is unusable, nothing is signed: %v", err)
		return teamSigning{err: err}
	}
	return teamSigning{authority: a}
}

// SigningInfo is what GET /api/signing says of the team's key.
type SigningInfo struct {
	// Form is "anonymous" (a public key) or "domain" (a certificate for Domain).
	Form        string `json:"form"`
	Algorithm   string `json:"algorithm"`
	PublicKey   string `json:"publicKey"` // base64 DER SubjectPublicKeyInfo
	Fingerprint string `json:"fingerprint"`
	PEM         string `json:"pem"` // the public key in PEM
	Domain      string `json:"domain,omitempty"`
	Certificate string `json:"certificate,omitempty"` // the PEM chain, leaf first
	// Timestamped says that signatures are stamped by a timestamp authority.
	Timestamped bool `json:"timestamped"`
}

// signRequest is POST /api/sign's body, as authsign's /sign takes it.
type signRequest struct {
	Hash    string `json:"hash"`
	Created string `json:"created"`
}

var manifestHash = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// maxCreatedSkew is how far a sign request's created may be from the archive's
// clock: wacz-auth allows 10 minutes between created and the timestamp.
const maxCreatedSkew = 5 * time.Minute

func (s *Server) signingUnavailable() error {
	if s.signing.err != nil {
		return httpErr(http.StatusServiceUnavailable, "the team's signing key is unusable, nothing is signed: %v", s.signing.err)
	}
	return httpErr(http.StatusNotFound, "this team archive signs nothing: no signing key is configured (WEBKEEP_SIGNING_KEY)")
}

func (s *Server) getSigning(w http.ResponseWriter) error {
	a := s.signing.authority
	if a == nil {
		return s.signingUnavailable()
	}
	spki := a.Signer.PublicKey()
	info := SigningInfo{Form: "anonymous", Algorithm: "ECDSA, SHA-256", PublicKey: base64.StdEncoding.EncodeToString(spki), Fingerprint: wacz.Fingerprint(spki),
		PEM: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki})), Timestamped: a.Timestamper != nil}
	if pub, err := wacz.ParsePublicKey(spki); err == nil {
		info.Algorithm = "ECDSA " + pub.Curve + ", SHA-256"
	}
	if a.DomainCert != "" {
		info.Form, info.Domain, info.Certificate = "domain", a.Domain, a.DomainCert
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

func (s *Server) postSign(w http.ResponseWriter, r *http.Request) error {
	a := s.signing.authority
	if a == nil {
		return s.signingUnavailable()
	}
	var req signRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&req); err != nil {
		return httpErr(http.StatusBadRequest, "the request: want JSON {\"hash\": \"sha256:<hex>\", \"created\": \"<RFC 3339 time>\"}: %v", err)
	}
	if !manifestHash.MatchString(req.Hash) {
		return httpErr(http.StatusBadRequest, "hash %q: want \"sha256:\" and 64 lower-case hex digits, the SHA-256 of a datapackage.json", clip(req.Hash))
	}
	now := s.cfg.Now()
	created := now
	if req.Created != "" {
		t, err := time.Parse(time.RFC3339Nano, req.Created)
		if err != nil {
			return httpErr(http.StatusBadRequest, "created %q: not an RFC 3339 time", clip(req.Created))
		}
		if d := t.Sub(now).Abs(); d > maxCreatedSkew {
			return httpErr(http.StatusBadRequest, "created %s is %s from the archive's clock (%s): at most %s is signed", clip(req.Created), d.Round(time.Second), now.UTC().Format(time.RFC3339), maxCreatedSkew)
		}
		created = t
	}
	sd, err := a.SignHash(r.Context(), req.Hash, created)
	if err != nil {
		s.cfg.Logf("teamarchive: signing %s: %v", req.Hash, err)
		return httpErr(http.StatusBadGateway, "%v", err)
	}
	writeJSON(w, http.StatusOK, sd)
	return nil
}

// SigningDescription says in words how the archive signs, for its logs.
func (s *Server) SigningDescription() string {
	a := s.signing.authority
	switch {
	case a == nil && s.signing.err != nil:
		return "signing: off (" + s.signing.err.Error() + ")"
	case a == nil:
		return "signing: off"
	case a.DomainCert != "":
		return fmt.Sprintf("signing: domain-name form, certificate for %s, key %s, timestamped: %t", a.Domain, wacz.Fingerprint(a.Signer.PublicKey())[:16], a.Timestamper != nil)
	}
	return fmt.Sprintf("signing: anonymous form, key %s, timestamped: %t", wacz.Fingerprint(a.Signer.PublicKey())[:16], a.Timestamper != nil)
}
