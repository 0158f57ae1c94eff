package notary

import (
	"bytes"
	"encoding/json"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// maxProof bounds a proof's hashes: a tree of 2^63 leaves needs at most 2*63.
const maxProof = 128

// EncodeProof returns a proof's hashes in standard base64, as the archive's answers
// carry them.
func EncodeProof(p []tlog.Hash) []string {
	out := make([]string, len(p))
	for i, h := range p {
		out[i] = h.String()
	}
	return out
}

// DecodeProof reads hashes in standard base64.
func DecodeProof(s []string) ([]tlog.Hash, error) {
	if len(s) > maxProof {
		return nil, fmt.Errorf("%w: %d hashes (a proof has at most %d)", ErrProof, len(s), maxProof)
	}
	out := make([]tlog.Hash, len(s))
	for i, v := range s {
		h, ok := decodeHash(v)
		if !ok {
			return nil, fmt.Errorf("%w: hash %d, %.100q: want %d bytes in base64", ErrProof, i+1, v, tlog.HashSize)
		}
		out[i] = h
	}
	return out, nil
}

// ParseProof reads a proof file: either JSON that has a "proof" list of base64
// hashes (the archive's answer to a proof or consistency request, or an upload's
// answer, whose "notary" object has it), or the base64 hashes one a line.
func ParseProof(data []byte) ([]tlog.Hash, error) {
	data = bytes.TrimSpace(data)
	if bytes.HasPrefix(data, []byte("{")) {
		var doc struct {
			Proof  *[]string `json:"proof"`
			Notary *struct {
				Proof *[]string `json:"proof"`
				Error string    `json:"error"`
			} `json:"notary"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrProof, err)
		}
		switch {
		case doc.Proof != nil:
			return DecodeProof(*doc.Proof)
		case doc.Notary != nil && doc.Notary.Proof != nil:
			return DecodeProof(*doc.Notary.Proof)
		case doc.Notary != nil && doc.Notary.Error != "":
			return nil, fmt.Errorf("%w: the bundle was not logged: %s", ErrProof, doc.Notary.Error)
		}
		return nil, fmt.Errorf("%w: JSON without a \"proof\" list", ErrProof)
	}
	var hashes []string
	for line := range bytes.Lines(data) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			hashes = append(hashes, string(line))
		}
		if len(hashes) > maxProof {
			break
		}
	}
	return DecodeProof(hashes)
}
