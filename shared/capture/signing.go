package capture

import (
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/tsa"
	"github.com/webkeep/webkeep/shared/wacz"
)

// SigningHost is a Host that signs the WACZ downloads: in the extension, with an
// ECDSA P-384 key that WebCrypto made, which never leaves the browser
// (wasm/webcrypto); the signature is wacz-auth 0.1.0's anonymous form, which
// ReplayWeb.page checks (shared/wacz, sign.go). WACZSigner makes the key the first
// time it is asked for.
type SigningHost interface {
	WACZSigner() (wacz.Signer, error)
}

// errNoSigning is the answer about the signing key of a core that signs nothing.
var errNoSigning = errors.New("this webkeep signs no WACZ: its host has no signing key")

// signing signs the WACZ downloads: with the host's key (SigningHost), or the team
// archive's when the settings say so; and shows the host's key (/api/signing-key).
type signing struct {
	host     Host
	settings *userSettings
	http     *clients
}

// signer returns the signer of the WACZ downloads, nil when the host signs none.
func (g *signing) signer() (wacz.Signer, error) {
	sh, ok := g.host.(SigningHost)
	if !ok {
		return nil, nil
	}
	signer, err := sh.WACZSigner()
	if err != nil {
		return nil, fmt.Errorf("the WACZ signing key: %w", err)
	}
	return signer, nil
}

// key describes the key the WACZ downloads are signed with.
func (g *signing) key() (api.SigningKey, error) {
	signer, err := g.signer()
	if err != nil {
		return api.SigningKey{}, err
	}
	if signer == nil {
		return api.SigningKey{}, errNoSigning
	}
	return signingKey(signer), nil
}

func signingKey(signer wacz.Signer) api.SigningKey {
	spki := signer.PublicKey()
	k := api.SigningKey{
		Algorithm:   "ECDSA, SHA-256",
		PublicKey:   base64.StdEncoding.EncodeToString(spki),
		Fingerprint: wacz.Fingerprint(spki),
		PEM:         string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki})),
	}
	if pub, err := wacz.ParsePublicKey(spki); err == nil {
		k.Algorithm = "ECDSA " + pub.Curve + ", SHA-256"
	}
	if c, ok := signer.(interface{ Created() string }); ok {
		k.Created = c.Created()
	}
	return k
}

// routes adds the signing key: its description, and its PEM file.
func (g *signing) routes(mux *routeTable) {
	key := func(w httpmsg.ResponseWriter) (api.SigningKey, bool) {
		k, err := g.key()
		if err != nil {
			writeError(w, err) // errNoSigning: 404
			return k, false
		}
		return k, true
	}
	mux.HandleFunc("GET /api/signing-key", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if k, ok := key(w); ok {
			writeJSON(w, httpmsg.StatusOK, k)
		}
	})
	mux.HandleFunc("GET /api/signing-key.pem", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if k, ok := key(w); ok {
			sendFile(w, "webkeep-signing-key-"+k.Fingerprint[:16]+".pem", "application/x-pem-file", func(w io.Writer) error {
				_, err := io.WriteString(w, k.PEM)
				return err
			})
		}
	})
}

// maxVerificationProblems bounds the problems an imported session lists.
const maxVerificationProblems = 20

// verification sums up a WACZ's Report for the session imported from it; own is
// the fingerprint of this browser's signing key, or "".
func verification(rep *wacz.Report, own string) *api.Verification {
	v := &api.Verification{OK: rep.OK(), Files: rep.Files, Records: rep.Records, IndexLines: rep.IndexLines, Failed: rep.Failed}
	if sig := rep.Signature; sig != nil {
		v.Signed, v.SignatureValid = true, sig.Valid
		if sig.PublicKey != nil {
			v.PublicKey = base64.StdEncoding.EncodeToString(sig.PublicKey)
		}
		v.Fingerprint, v.Created, v.Software, v.Domain = sig.Fingerprint, sig.Created, sig.Software, sig.Domain
		v.OwnKey = own != "" && own == sig.Fingerprint
		if t := sig.Timestamp; t != nil {
			v.Timestamp, v.TimestampAuthority = t.Time.UTC().Format(time.RFC3339), t.Authority
		}
	}
	v.Unchecked = rep.Unchecked
	for i, p := range rep.Problems {
		if i == maxVerificationProblems {
			break
		}
		v.Problems = append(v.Problems, p.String())
	}
	return v
}

// authority returns what signs the WACZ downloads, nil when nothing does: the team
// archive's /api/sign when the settings say so, else this browser's key, stamped by
// the settings' timestamp authority when there is one.
func (g *signing) authority() (wacz.Authority, error) {
	set := g.settings.get()
	if set.SignWith == "team" {
		if !set.HasTeam() {
			return nil, fmt.Errorf("the WACZ is to be signed with the team's key: %w", errNoTeam)
		}
		u, err := url.JoinPath(set.TeamEndpoint, "api/sign")
		if err != nil {
			return nil, fmt.Errorf("team endpoint: %w", err)
		}
		return &wacz.HTTPAuthority{URL: u, Token: set.TeamToken, HTTP: g.http.client(true)}, nil
	}
	signer, err := g.signer()
	if err != nil || signer == nil {
		return nil, err
	}
	a := &wacz.KeyAuthority{Signer: signer, Software: "webkeep"}
	if set.TimestampAuthority != "" {
		a.Timestamper = &tsa.Client{URL: set.TimestampAuthority, HTTP: g.http.client(true)}
	}
	return a, nil
}

// ownFingerprint is the fingerprint of this browser's signing key, or "".
func (g *signing) ownFingerprint() string {
	signer, err := g.signer()
	if err != nil || signer == nil {
		return ""
	}
	return wacz.Fingerprint(signer.PublicKey())
}
