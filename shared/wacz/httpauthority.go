package wacz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// HTTPAuthority is an Authority over HTTP: it POSTs {"hash", "created"} to URL and
// takes the signedData the server answers, as a team archive's /api/sign and
// authsign's /sign do.
type HTTPAuthority struct {
	URL   string       // the signing endpoint: "https://team.example/api/sign"
	Token string       // sent as "Authorization: Bearer <Token>" when set
	HTTP  httpmsg.Doer // the browser's fetch, or net/http's client natively
}

// maxSignedData bounds the server's answer: certificate chains included, a
// signedData is a few kilobytes.
const maxSignedData = 1 << 20

// SignHash asks the server to sign hash, as of created.
func (a *HTTPAuthority) SignHash(ctx context.Context, hash string, created time.Time) (*SignedData, error) {
	body, _ := json.Marshal(map[string]string{"hash": hash, "created": formatTime(created.Truncate(time.Second))})
	req, err := httpmsg.NewRequest(ctx, httpmsg.MethodPost, a.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSignature, a.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: asking %s: %v", ErrSignature, a.URL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSignedData+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the answer of %s: %v", ErrSignature, a.URL, err)
	}
	if resp.StatusCode != 200 {
		var e struct {
			Error string `json:"error"`
		}
		msg := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		return nil, fmt.Errorf("%w: %s answered %s: %s", ErrSignature, a.URL, resp.Status, msg)
	}
	if len(data) > maxSignedData {
		return nil, fmt.Errorf("%w: %s answered more than %d bytes", ErrSignature, a.URL, maxSignedData)
	}
	var sd SignedData
	if err := json.Unmarshal(data, &sd); err != nil {
		return nil, fmt.Errorf("%w: %s answered no signedData: %v", ErrSignature, a.URL, err)
	}
	if sd.Signature == "" || (sd.PublicKey == "" && sd.DomainCert == "") {
		return nil, fmt.Errorf("%w: %s answered a signedData without a signature, public key or certificate", ErrSignature, a.URL)
	}
	return &sd, nil
}
