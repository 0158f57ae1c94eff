package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/notary"
	"github.com/webkeep/webkeep/shared/teamarchive"
)

// archiveForTest is a team archive in memory with a notary key; it returns the
// server and the verifier key.
func archiveForTest(t *testing.T) (*teamarchive.Server, string) {
	t.Helper()
	var out bytes.Buffer
	if code := run([]string{"notary", "keygen", "archive.test/notary"}, &out, &out); code != 0 {
		t.Fatalf("keygen: exit %d: %s", code, out.String())
	}
	keys := strings.Fields(out.String())
	if len(keys) != 2 || !strings.HasPrefix(keys[0], "PRIVATE+KEY+archive.test/notary+") || !strings.HasPrefix(keys[1], "archive.test/notary+") {
		t.Fatalf("keygen printed %q", out.String())
	}
	s := teamarchive.NewServer(teamarchive.Config{
		Bucket: teamarchive.NewMemBucket(), Tokens: teamarchive.ParseTokens("t:secret"), PublicReads: true, NotaryKey: keys[0],
	})
	return s, keys[1]
}

func archiveCall(t *testing.T, s http.Handler, method, path string, body []byte) []byte {
	t.Helper()
	r := httptest.NewRequest(method, "http://archive.test"+path, bytes.NewReader(body))
	r.Header.Set("Authorization", "Bearer secret")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
	}
	return w.Body.Bytes()
}

// TestNotaryCommands runs the offline checks on what a team archive answers: a
// bundle uploaded, downloaded and checked against its receipt; the same bundle
// changed after upload fails; a replacement is another leaf; two heads are
// consistent; and a head that is not the key's, or a proof of another leaf, fail.
func TestNotaryCommands(t *testing.T) {
	dir := t.TempDir()
	s, vkey := archiveForTest(t)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bundle, err := os.ReadFile("../../shared/teamarchive/testdata/sample-bundle.zip")
	if err != nil {
		t.Fatal(err)
	}
	answer1 := archiveCall(t, s, "PUT", "/api/bundles/team.zip", bundle)
	var rec struct {
		Notary teamarchive.NotaryReceipt `json:"notary"`
	}
	if err := json.Unmarshal(answer1, &rec); err != nil {
		t.Fatal(err)
	}
	upload1 := strings.Fields(rec.Notary.Leaf)[2]
	keyFile := write("notary.key", archiveCall(t, s, "GET", "/api/notary/key", nil))
	head1 := write("head1", []byte(rec.Notary.Head))
	proof1 := write("answer1.json", answer1)

	// The downloaded bundle's leaf, as the CLI computes it, is the receipt's.
	downloaded := write("team.zip", archiveCall(t, s, "GET", "/api/bundles/team.zip", nil))
	var out, errb bytes.Buffer
	if code := run([]string{"notary", "leaf", downloaded, "team.zip", upload1}, &out, &errb); code != 0 || out.String() != rec.Notary.Leaf+"\n" {
		t.Fatalf("notary leaf: exit %d, %q (want %q); %s", code, out.String(), rec.Notary.Leaf, errb.String())
	}
	leaf1 := out.String() // with its newline, as $(...) would not keep it: verify takes both

	changed := bytes.Clone(bundle)
	changed[100] ^= 0x20
	changedFile := write("changed.zip", changed)
	out.Reset()
	run([]string{"notary", "leaf", changedFile, "team.zip", upload1}, &out, &errb)
	changedLeaf := strings.TrimSpace(out.String())

	// Replace the bundle: a second leaf, a second head.
	answer2 := archiveCall(t, s, "PUT", "/api/bundles/team.zip?overwrite=1", changed)
	head2 := write("head2", archiveCall(t, s, "GET", "/api/notary/head", nil))
	proof0in2 := write("proof0in2.json", archiveCall(t, s, "GET", "/api/notary/proof?index=0", nil))
	consistency := write("consistency.json", archiveCall(t, s, "GET", "/api/notary/consistency?old=1&new=2", nil))
	var c struct{ Proof []string }
	json.Unmarshal(readFile(t, consistency), &c)
	consistencyLines := write("consistency.txt", []byte(strings.Join(c.Proof, "\n")+"\n"))
	var rec2 struct {
		Notary teamarchive.NotaryReceipt `json:"notary"`
	}
	json.Unmarshal(answer2, &rec2)
	if rec2.Notary.Index != 1 || rec2.Notary.Leaf == rec.Notary.Leaf {
		t.Fatalf("replacement's receipt %+v", rec2.Notary)
	}
	_, otherKey, _ := notary.GenerateKey("archive.test/notary") // same name, another key

	for _, tc := range []struct {
		name string
		args []string
		code int
		say  string // in stdout (exit 0) or stderr
	}{
		{"downloaded bundle", []string{"verify", "--key", keyFile, "--head", head1, "--leaf", leaf1, "--index", "0", "--proof", proof1}, 0, "verified: leaf 0 of the tree of 1 leaves of archive.test/notary"},
		{"key given as text", []string{"verify", "--key", vkey, "--head", head1, "--leaf", rec.Notary.Leaf, "--index", "0", "--proof", proof1}, 0, "verified"},
		{"old leaf in the new tree", []string{"verify", "--key", vkey, "--head", head2, "--leaf", rec.Notary.Leaf, "--index", "0", "--proof", proof0in2}, 0, "tree of 2 leaves"},
		{"bundle changed after upload", []string{"verify", "--key", vkey, "--head", head1, "--leaf", changedLeaf, "--index", "0", "--proof", proof1}, 1, "NOT IN THE LOG"},
		{"changed bundle in the new tree", []string{"verify", "--key", vkey, "--head", head2, "--leaf", changedLeaf, "--index", "0", "--proof", proof0in2}, 1, "NOT IN THE LOG"},
		{"another index", []string{"verify", "--key", vkey, "--head", head2, "--leaf", rec.Notary.Leaf, "--index", "1", "--proof", proof0in2}, 1, "NOT IN THE LOG"},
		{"index outside the tree", []string{"verify", "--key", vkey, "--head", head1, "--leaf", rec.Notary.Leaf, "--index", "1", "--proof", proof1}, 1, "outside the tree"},
		{"head of another key", []string{"verify", "--key", otherKey, "--head", head1, "--leaf", rec.Notary.Leaf, "--index", "0", "--proof", proof1}, 1, "head1"},
		{"proof file missing", []string{"verify", "--key", vkey, "--head", head1, "--leaf", rec.Notary.Leaf, "--index", "0", "--proof", filepath.Join(dir, "nope")}, 1, "nope"},
		{"head file missing", []string{"verify", "--key", vkey, "--head", filepath.Join(dir, "nohead"), "--leaf", rec.Notary.Leaf, "--index", "0", "--proof", proof1}, 1, "nohead"},
		{"key file missing", []string{"verify", "--key", filepath.Join(dir, "nokey"), "--head", head1, "--leaf", rec.Notary.Leaf, "--index", "0", "--proof", proof1}, 1, "nokey"},
		{"proof not a proof", []string{"verify", "--key", vkey, "--head", head1, "--leaf", rec.Notary.Leaf, "--index", "0", "--proof", head1}, 1, "head1"},
		{"consistent", []string{"consistency", "--key", keyFile, head1, head2, consistency}, 0, "consistent: the tree of 2 leaves"},
		{"consistent, proof as lines", []string{"consistency", "--key", vkey, head1, head2, consistencyLines}, 0, "consistent"},
		{"same head", []string{"consistency", "--key", vkey, head2, head2, consistencyLines}, 1, "NOT CONSISTENT"},
		{"swapped", []string{"consistency", "--key", vkey, head2, head1, consistency}, 1, "NOT CONSISTENT"},
		{"consistency, head of another key", []string{"consistency", "--key", otherKey, head1, head2, consistency}, 1, "head1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"notary"}, tc.args...), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout.String(), stderr.String())
			}
			said := stderr.String()
			if code == 0 {
				said = stdout.String()
			}
			if !strings.Contains(said, tc.say) {
				t.Errorf("output does not say %q:\nstdout: %s\nstderr: %s", tc.say, stdout.String(), stderr.String())
			}
		})
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNotaryUsage: usage errors exit 2, -h 0, as the other commands.
func TestNotaryUsage(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "b.zip")
	os.WriteFile(bundle, []byte("PK"), 0o644)
	const leaf = "webkeep-bundle a.zip u1 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 4"
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"notary"}, 2},
		{[]string{"notary", "-h"}, 0},
		{[]string{"notary", "nope"}, 2},
		{[]string{"notary", "verify"}, 2},
		{[]string{"notary", "verify", "-h"}, 0},
		{[]string{"notary", "verify", "--key", "k+1+x", "--head", "h", "--leaf", leaf, "--proof", "p"}, 2},                             // no --index
		{[]string{"notary", "verify", "--key", "k+1+x", "--head", "h", "--leaf", "nonsense", "--index", "0", "--proof", "p"}, 2},       // bad leaf
		{[]string{"notary", "verify", "--key", "PRIVATE+KEY+k+1+x", "--head", "h", "--leaf", leaf, "--index", "0", "--proof", "p"}, 2}, // a signer key
		{[]string{"notary", "verify", "--key", "k+1+x", "--head", "h", "--leaf", leaf, "--index", "x", "--proof", "p"}, 2},
		{[]string{"notary", "verify", "--key", "k+1+x", "--head", "h", "--leaf", leaf, "--index", "0", "--proof", "p", "extra"}, 2},
		{[]string{"notary", "consistency", "--key", "k+1+x", "a", "b"}, 2},
		{[]string{"notary", "consistency", "a", "b", "c"}, 2},
		{[]string{"notary", "consistency", "-h"}, 0},
		{[]string{"notary", "leaf", bundle, "a.zip"}, 2},
		{[]string{"notary", "leaf", bundle, "a zip", "u1"}, 2},
		{[]string{"notary", "leaf", filepath.Join(dir, "missing.zip"), "a.zip", "u1"}, 1},
		{[]string{"notary", "leaf", "-h"}, 0},
		{[]string{"notary", "keygen"}, 2},
		{[]string{"notary", "keygen", "a name"}, 2},
		{[]string{"notary", "keygen", "a+b"}, 2},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != tc.want {
			t.Errorf("webkeep %s: exit %d, want %d; stderr:\n%s", strings.Join(tc.args, " "), code, tc.want, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	sum := sha256.Sum256([]byte("PK"))
	if code := run([]string{"notary", "leaf", bundle, "b.zip", "u1"}, &stdout, &stderr); code != 0 ||
		stdout.String() != fmt.Sprintf("webkeep-bundle b.zip u1 %x 2\n", sum) {
		t.Errorf("notary leaf: exit %d, %q", code, stdout.String())
	}
}
