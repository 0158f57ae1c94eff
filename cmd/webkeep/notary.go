package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/webkeep/webkeep/shared/notary"
	"github.com/webkeep/webkeep/shared/tsa"
)

// The notary command joins the command table here, so that main.go's table stays
// as it is.
func init() {
	commands["notary"] = command{"check a team archive's notary log offline: receipts, heads, bundles", runNotary}
}

func notaryUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: webkeep notary <command> [arguments]

commands:
  verify       check that a leaf is in the log, by a signed head and an inclusion proof
  consistency  check that a signed head extends an older one, by a consistency proof
  leaf         print the leaf record of a local bundle file
  keygen       make a signer key (the Worker's WEBKEEP_NOTARY_KEY) and its verifier key

The team archive logs every bundle it stores in an append-only Merkle log
(RFC 6962 hashing) and signs its tree heads (golang.org/x/mod/sumdb/note); see
docs/worker.md, "Notary log". Everything here runs offline.

Run 'webkeep notary <command> -h' for a command's arguments.`)
}

// runNotary dispatches the notary subcommands.
func runNotary(args []string, stdout, stderr io.Writer) int {
	return dispatch("notary", notaryUsage, subcommands{
		"verify":      runNotaryVerify,
		"consistency": runNotaryConsistency,
		"leaf":        runNotaryLeaf,
		"keygen":      runNotaryKeygen,
	}, args, stdout, stderr)
}

func notaryFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("webkeep notary "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		if strings.Contains(usage, "--") {
			fmt.Fprintln(stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// verifierKey reads --key: a verifier key, or a file that holds one. usage is set
// for an error of the argument itself (a signer key given).
func verifierKey(arg string) (key string, usage bool, err error) {
	key = strings.TrimSpace(arg)
	if b, rerr := os.ReadFile(arg); rerr == nil {
		key = strings.TrimSpace(string(b))
	} else if !strings.Contains(arg, "+") {
		return "", false, rerr // neither a key nor a file
	}
	if strings.HasPrefix(key, "PRIVATE+KEY+") {
		return "", true, errors.New("that is the signer key, a secret: give the verifier key (GET /api/notary/key)")
	}
	return key, false, nil
}

// openHead reads and verifies a signed head file.
func openHead(file, key string) (notary.Head, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return notary.Head{}, err
	}
	h, err := notary.OpenHead(b, key)
	if err != nil {
		return notary.Head{}, fmt.Errorf("%s: %w", file, err)
	}
	return h, nil
}

func readProof(file string) ([]tlog.Hash, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p, err := notary.ParseProof(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return p, nil
}

const notaryVerifyUsage = `usage: webkeep notary verify --key KEY --head HEAD_FILE --leaf "<leaf record>" --index N --proof PROOF_FILE

Checks that the leaf record is leaf N of the tree that HEAD_FILE, a tree head
signed with KEY, describes: the head's signature, then the inclusion proof.
The leaf record is "webkeep-bundle <name> <upload> <sha256> <size>" (webkeep
notary leaf prints it for a bundle file; GET /api/notary/leaf/N serves it).
PROOF_FILE is the archive's JSON answer (of the upload, or of
GET /api/notary/proof) or the proof's base64 hashes one a line.
With --timestamp, also checks the RFC 3161 timestamp of the head (an upload's
answer has it as headTimestamp when the archive has a timestamp authority): the
authority's signature, its chain to a root this machine trusts (or one of
--roots), and that it stamps HEAD_FILE's bytes.
Exits 0 when the leaf is in the log, 1 when not (or a file cannot be read), 2
for a usage error.
`

func runNotaryVerify(args []string, stdout, stderr io.Writer) int {
	fs := notaryFlags("verify", notaryVerifyUsage, stderr)
	keyArg := fs.String("key", "", "the verifier `KEY` of the log (GET /api/notary/key), or a file holding it")
	headFile := fs.String("head", "", "the signed tree head `FILE` (GET /api/notary/head, or the receipt's head)")
	leafArg := fs.String("leaf", "", "the leaf `record`")
	index := fs.Int64("index", -1, "the leaf's index `N` in the log")
	proofFile := fs.String("proof", "", "the inclusion proof `FILE`")
	stampFile := fs.String("timestamp", "", "the head's RFC 3161 timestamp: the upload's JSON answer (its headTimestamp), or the DER response, a `FILE`")
	rootsFile := fs.String("roots", "", "with --timestamp: trust the CA certificates of this PEM `file` too")
	rest, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 0 || *keyArg == "" || *headFile == "" || *leafArg == "" || *index < 0 || *proofFile == "" {
		fs.Usage()
		return 2
	}
	key, usage, err := verifierKey(*keyArg)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep notary verify: --key: %v\n", err)
		if usage {
			return 2
		}
		return 1
	}
	// A record from $(...) or a file may carry its line's end; the record hashed
	// has none.
	leaf := strings.TrimSuffix(strings.TrimSuffix(*leafArg, "\n"), "\r")
	if _, err := notary.ParseLeaf(leaf); err != nil {
		fmt.Fprintf(stderr, "webkeep notary verify: --leaf: %v\n", err)
		return 2
	}
	head, err := openHead(*headFile, key)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep notary verify: %v\n", err)
		return 1
	}
	p, err := readProof(*proofFile)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep notary verify: %v\n", err)
		return 1
	}
	if err := notary.VerifyInclusion(head, []byte(leaf), *index, p); err != nil {
		fmt.Fprintf(stderr, "webkeep notary verify: NOT IN THE LOG: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "verified: leaf %d of the tree of %d leaves of %s (root %s):\n%s\n", *index, head.Tree.N, head.Origin, head.Tree.Hash, leaf)
	if *stampFile != "" {
		v, err := verifyHeadStamp(*headFile, *stampFile, *rootsFile)
		if err != nil {
			fmt.Fprintf(stderr, "webkeep notary verify: the head's timestamp: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "timestamped: the head existed at %s, by %s (serial %s)\n", v.Stamp.Time.UTC().Format(time.RFC3339), v.Signer.Subject, v.Stamp.Serial)
	}
	return 0
}

// verifyHeadStamp checks the RFC 3161 timestamp in stampFile (an upload's JSON
// answer, or the DER response) of headFile's bytes.
func verifyHeadStamp(headFile, stampFile, rootsFile string) (*tsa.Verified, error) {
	head, err := os.ReadFile(headFile)
	if err != nil {
		return nil, err
	}
	resp, err := os.ReadFile(stampFile)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(bytes.TrimSpace(resp), []byte("{")) {
		var rec struct {
			HeadTimestamp string `json:"headTimestamp"`
		}
		if err := json.Unmarshal(resp, &rec); err != nil {
			return nil, fmt.Errorf("%s: %w", stampFile, err)
		}
		if rec.HeadTimestamp == "" {
			return nil, fmt.Errorf("%s: the answer has no headTimestamp (the archive has no timestamp authority)", stampFile)
		}
		if resp, err = base64.StdEncoding.DecodeString(rec.HeadTimestamp); err != nil {
			return nil, fmt.Errorf("%s: headTimestamp: %w", stampFile, err)
		}
	}
	roots, err := trustedRoots(rootsFile)
	if err != nil {
		return nil, err
	}
	return tsa.Verify(resp, head, tsa.VerifyOptions{Roots: roots})
}

const notaryConsistencyUsage = `usage: webkeep notary consistency --key KEY OLD_HEAD NEW_HEAD PROOF_FILE

Checks that the tree of NEW_HEAD extends the tree of OLD_HEAD, both tree heads
signed with KEY: the log was only appended to between them, nothing in it
changed or removed. PROOF_FILE is the archive's JSON answer to
GET /api/notary/consistency?old=&new=, or the proof's base64 hashes one a line.
Exits 0 when they are consistent, 1 when not (or a file cannot be read), 2 for a
usage error.
`

func runNotaryConsistency(args []string, stdout, stderr io.Writer) int {
	fs := notaryFlags("consistency", notaryConsistencyUsage, stderr)
	keyArg := fs.String("key", "", "the verifier `KEY` of the log (GET /api/notary/key), or a file holding it")
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) != 3 || *keyArg == "" {
		fs.Usage()
		return 2
	}
	key, usage, err := verifierKey(*keyArg)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep notary consistency: --key: %v\n", err)
		if usage {
			return 2
		}
		return 1
	}
	older, err := openHead(files[0], key)
	if err == nil {
		var newer notary.Head
		newer, err = openHead(files[1], key)
		if err == nil {
			var p []tlog.Hash
			if p, err = readProof(files[2]); err == nil {
				if err = notary.VerifyConsistency(older, newer, p); err == nil {
					fmt.Fprintf(stdout, "consistent: the tree of %d leaves (root %s) extends the tree of %d leaves (root %s) of %s\n",
						newer.Tree.N, newer.Tree.Hash, older.Tree.N, older.Tree.Hash, older.Origin)
					return 0
				}
				err = fmt.Errorf("NOT CONSISTENT: %w", err)
			}
		}
	}
	fmt.Fprintf(stderr, "webkeep notary consistency: %v\n", err)
	return 1
}

const notaryLeafUsage = `usage: webkeep notary leaf BUNDLE_FILE NAME UPLOAD

Prints the leaf record the team archive logs for BUNDLE_FILE stored as NAME by
the upload UPLOAD ("webkeep-bundle <name> <upload> <sha256> <size>"): what
webkeep notary verify --leaf takes. A bundle downloaded and checked so verifies
only if its bytes are the ones uploaded.
`

func runNotaryLeaf(args []string, stdout, stderr io.Writer) int {
	fs := notaryFlags("leaf", notaryLeafUsage, stderr)
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) != 3 {
		fs.Usage()
		return 2
	}
	if err := (notary.Leaf{Name: files[1], Upload: files[2], SHA256: strings.Repeat("0", 64)}).Check(); err != nil {
		fmt.Fprintf(stderr, "webkeep notary leaf: %v\n", err)
		return 2
	}
	f, err := os.Open(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "webkeep notary leaf: %v\n", err)
		return 1
	}
	defer f.Close()
	l, err := notary.BundleLeaf(f, files[1], files[2])
	if err != nil {
		fmt.Fprintf(stderr, "webkeep notary leaf: %s: %v\n", files[0], err)
		return 1
	}
	fmt.Fprintln(stdout, l)
	return 0
}

const notaryKeygenUsage = `usage: webkeep notary keygen NAME

Prints a new Ed25519 signer key for the notary log's tree heads, then its
verifier key, one a line. The signer key is the Worker's secret
WEBKEEP_NOTARY_KEY (npx wrangler secret put WEBKEEP_NOTARY_KEY); the verifier key
is what the archive serves at /api/notary/key and what verify takes. NAME names
the log and is the first line of its heads: the archive's host and "/notary",
say, without spaces or "+".
`

func runNotaryKeygen(args []string, stdout, stderr io.Writer) int {
	fs := notaryFlags("keygen", notaryKeygenUsage, stderr)
	names, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(names) != 1 {
		fs.Usage()
		return 2
	}
	skey, vkey, err := notary.GenerateKey(names[0])
	if err != nil {
		fmt.Fprintf(stderr, "webkeep notary keygen: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, skey)
	fmt.Fprintln(stdout, vkey)
	return 0
}
