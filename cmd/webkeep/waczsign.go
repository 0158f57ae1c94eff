package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/tsa"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/waczauth"
)

// timeNow is when a signature is made; tests set it.
var timeNow = time.Now

// waczVerify checks a WACZ: every file against datapackage.json, every WARC record,
// every index line against its record, the digest of datapackage.json and the
// signature. It prints what it checked and each problem, and exits 0 only when all
// holds.
func waczVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webkeep wacz verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keyArg := fs.String("key", "", "require a signature by this `key`: a public key PEM file (a private key file is read for its public key), or the key's base64 SPKI or its SHA-256 fingerprint as the extension's options page shows them")
	quiet := fs.Bool("q", false, "print only the problems and the last line")
	rootsFile := fs.String("roots", "", "trust the CA certificates of this PEM `file` too (a team's own CA, a test timestamp authority's), besides this machine's")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: webkeep wacz verify [--key KEY] [--roots CA.pem] FILE.wacz\n\n", waczVerifyHelp, "\nflags:\n")
		fs.PrintDefaults()
	}
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		fs.Usage()
		return 2
	}
	var opts wacz.VerifyOptions
	if *keyArg != "" {
		spki, fp, err := readKeyArg(*keyArg)
		if err != nil {
			fmt.Fprintf(stderr, "webkeep wacz verify: --key: %v\n", err)
			return 2
		}
		opts.PublicKey, opts.Fingerprint = spki, fp
	}
	roots, err := trustedRoots(*rootsFile)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz verify: --roots: %v\n", err)
		return 2
	}
	opts.Certificates = &waczauth.Checker{Roots: roots}
	name := files[0]
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz verify: %v\n", err)
		return 1
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz verify: %v\n", err)
		return 1
	}
	rep, err := wacz.Verify(f, st.Size(), opts)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz verify: %s: %v\n", name, err)
		return 1
	}
	if !*quiet {
		for _, c := range rep.Checked {
			fmt.Fprintln(stdout, "ok    "+c)
		}
		for _, c := range rep.Unchecked {
			fmt.Fprintln(stdout, "skip  "+c)
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(stdout, "FAIL  "+p.String())
	}
	if more := rep.Failed - len(rep.Problems); more > 0 {
		fmt.Fprintf(stdout, "FAIL  and %d more problems\n", more)
	}
	what := fmt.Sprintf("%d files, %d WARC records, %d index lines", rep.Files, rep.Records, rep.IndexLines)
	signed := signatureSummary(rep.Signature)
	if rep.OK() {
		fmt.Fprintf(stdout, "%s: verified: %s; %s\n", name, what, signed)
		return 0
	}
	noun := "problems"
	if rep.Failed == 1 {
		noun = "problem"
	}
	fmt.Fprintf(stdout, "%s: FAILED: %d %s; %s checked; %s\n", name, rep.Failed, noun, what, signed)
	fmt.Fprintf(stderr, "webkeep wacz verify: %s: %d %s, the first: %s\n", name, rep.Failed, noun, rep.Problems[0])
	return 1
}

// signatureSummary says in a few words who signed, when, and its timestamp.
func signatureSummary(s *wacz.Signature) string {
	switch {
	case s == nil:
		return "not signed"
	case !s.Valid:
		return "its signature does not hold"
	}
	by := fmt.Sprintf("signed by key %s (ECDSA %s)", s.Fingerprint, s.Curve)
	if s.Certificate != nil {
		by = fmt.Sprintf("signed by the certificate for %s (key %s)", s.Certificate.Domain, s.Fingerprint)
	}
	by += " on " + s.Created
	if t := s.Timestamp; t != nil {
		by += fmt.Sprintf(", timestamped %s by %s", t.Time.UTC().Format(time.RFC3339), t.Authority)
	}
	return by
}

// trustedRoots is this machine's trusted roots, with the certificates of the PEM
// file name when it is not "".
func trustedRoots(name string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if name == "" {
		return pool, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	certs, err := waczauth.ParseChain(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

const waczVerifyHelp = `Checks a WACZ: each file against datapackage.json (size and SHA-256) and no file
missing or unlisted; each WARC record (whole, its gzip member, its block and payload
digests); each line of the index against the record at its offset (length,
digest, URL, time), and each block of a compressed index against index.idx; the
hash of datapackage.json in datapackage-digest.json; and its signature (WACZ
signing 0.1.0: ECDSA, SHA-256) with the public key it holds, or in the domain-name
form with its certificate, whose chain must end in a root this machine trusts
(or one of --roots); and its RFC 3161 timestamp, the authority's signature and
chain likewise, within 10 minutes of the signature's time.
Prints what it checked, and each problem with its file, record offset or index
line, and field. Exits 0 only when everything holds, 1 when something does not,
2 for a usage error.
`

// waczSign signs a WACZ: its files are copied as they are, and its
// datapackage-digest.json written anew with the signature.
func waczSign(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webkeep wacz sign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keyFile := fs.String("key", "", "the private key `file` (PEM, as webkeep wacz keygen writes it)")
	certFile := fs.String("cert", "", "sign in the domain-name form: the key's certificate chain, a PEM `file`, leaf first")
	tsaURL := fs.String("tsa", "", "have this RFC 3161 timestamp authority (`URL`) stamp the signature")
	team := fs.String("team", "", "have this team archive (`URL`) sign with the team's key (its /api/sign), instead of --key")
	token := fs.String("token", os.Getenv("WEBKEEP_TOKEN"), "the team archive's write `token` (default $WEBKEEP_TOKEN)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: webkeep wacz sign (--key KEY.pem [--cert CHAIN.pem] [--tsa URL] | --team URL [--token T]) IN.wacz OUT.wacz\n\nSigns a WACZ that verifies (webkeep wacz verify): OUT is IN with a signed\ndatapackage-digest.json (WACZ signing 0.1.0: the anonymous form with --key, the\ndomain-name form with --cert, stamped by --tsa; or as the team archive signs).\n\nflags:\n")
		fs.PrintDefaults()
	}
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if (*keyFile == "") == (*team == "") || len(files) != 2 || (*team != "" && (*certFile != "" || *tsaURL != "")) {
		fs.Usage()
		return 2
	}
	in, out := files[0], files[1]
	authority, err := signingAuthority(*keyFile, *certFile, *tsaURL, *team, *token)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz sign: %v\n", err)
		return 1
	}
	f, err := os.Open(in)
	var st os.FileInfo
	if err == nil {
		defer f.Close()
		st, err = f.Stat()
	}
	var zr *zip.Reader
	if err == nil {
		zr, err = zip.NewReader(f, st.Size())
	}
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz sign: %s: %v\n", in, err)
		return 1
	}
	rep, err := wacz.Verify(f, st.Size(), wacz.VerifyOptions{})
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz sign: %s: %v\n", in, err)
		return 1
	}
	for _, p := range rep.Problems {
		if p.File == wacz.DigestPath && strings.HasPrefix(p.Field, "signedData") {
			continue // replaced
		}
		fmt.Fprintf(stderr, "webkeep wacz sign: %s does not verify, and is not signed: %s\n", in, p)
		return 1
	}
	sd, err := writeSigned(zr, out, authority)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz sign: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s\n", out, signedSummary(sd))
	return 0
}

// signingAuthority is what signs for `webkeep wacz sign`'s flags.
func signingAuthority(keyFile, certFile, tsaURL, team, token string) (wacz.Authority, error) {
	client := nethttp.Client{Client: &http.Client{Timeout: time.Minute}}
	if team != "" {
		return &wacz.HTTPAuthority{URL: strings.TrimSuffix(team, "/") + "/api/sign", Token: token, HTTP: client}, nil
	}
	key, err := readPrivateKey(keyFile)
	if err != nil {
		return nil, err
	}
	signer, err := waczauth.NewSigner(key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyFile, err)
	}
	var ts wacz.Timestamper
	if tsaURL != "" {
		ts = &tsa.Client{URL: tsaURL, HTTP: client}
	}
	if certFile == "" {
		return &wacz.KeyAuthority{Signer: signer, Timestamper: ts}, nil
	}
	chain, err := os.ReadFile(certFile)
	if err != nil {
		return nil, err
	}
	a, err := waczauth.NewDomainAuthority(signer, chain, ts, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	return a, nil
}

// signedSummary says who signed sd.
func signedSummary(sd *wacz.SignedData) string {
	var by string
	if sd.Domain != "" {
		by = "signed by the certificate for " + sd.Domain
	} else {
		spki, _ := base64.StdEncoding.DecodeString(sd.PublicKey)
		by = "signed by key " + wacz.Fingerprint(spki)
	}
	if sd.TimeSignature != "" {
		if raw, err := base64.StdEncoding.DecodeString(sd.TimeSignature); err == nil {
			if st, err := tsa.Parse(raw); err == nil {
				by += ", timestamped " + st.Time.UTC().Format(time.RFC3339)
			}
		}
	}
	return by
}

// writeSigned writes the WACZ zr to out, through a temporary file beside it, with its
// datapackage-digest.json signed.
func writeSigned(zr *zip.Reader, out string, a wacz.Authority) (*wacz.SignedData, error) {
	var manifest []byte
	for _, f := range zr.File {
		if f.Name == wacz.DatapackagePath {
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			manifest, err = io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	digest, err := wacz.SignManifest(context.Background(), manifest, a, timeNow())
	if err != nil {
		return nil, err
	}
	var df struct {
		SignedData *wacz.SignedData `json:"signedData"`
	}
	if err := json.Unmarshal(digest, &df); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".wacz-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	tmp.Chmod(0o644)
	bw := bufio.NewWriterSize(tmp, 1<<20)
	zw := zip.NewWriter(bw)
	for _, f := range zr.File {
		if f.Name == wacz.DigestPath {
			continue
		}
		if err = zw.Copy(f); err != nil {
			break
		}
	}
	if err == nil {
		var w io.Writer
		if w, err = zw.CreateHeader(&zip.FileHeader{Name: wacz.DigestPath, Method: zip.Deflate, Modified: timeNow()}); err == nil {
			_, err = w.Write(digest)
		}
	}
	if err == nil {
		err = zw.Close()
	}
	return df.SignedData, commitFile(tmp, bw, out, err)
}

// waczKeygen makes a signing key: ECDSA P-384, the curve ReplayWeb.page checks WACZ
// signatures with.
func waczKeygen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webkeep wacz keygen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the private key `file` to write (PEM, PKCS #8, readable by its owner only); it must not exist")
	pub := fs.String("pub", "", "also write the public key to this `file` (PEM), for webkeep wacz verify --key")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: webkeep wacz keygen -o KEY.pem [--pub PUBLIC.pem]\n\nMakes an ECDSA P-384 key for webkeep wacz sign, and prints its public key and\nfingerprint.\n\nflags:\n")
		fs.PrintDefaults()
	}
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if *out == "" || len(files) != 0 {
		fs.Usage()
		return 2
	}
	key, err := waczauth.GenerateKey()
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz keygen: %v\n", err)
		return 1
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz keygen: %v\n", err)
		return 1
	}
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz keygen: %v\n", err)
		return 1
	}
	spki, _ := wacz.MarshalPublicKey(&key.PublicKey)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki})
	if *pub != "" {
		if err := os.WriteFile(*pub, pubPEM, 0o644); err != nil {
			fmt.Fprintf(stderr, "webkeep wacz keygen: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "%s: ECDSA P-384 key, fingerprint %s\n%s", *out, wacz.Fingerprint(spki), pubPEM)
	return 0
}

// readPrivateKey reads an ECDSA private key from a PEM file: PKCS #8 ("PRIVATE
// KEY", as keygen and openssl genpkey write it) or SEC 1 ("EC PRIVATE KEY", as
// openssl ecparam -genkey writes it).
func readPrivateKey(name string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	key, err := waczauth.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return key, nil
}

// readKeyArg reads the key of --key: a file (public key PEM, or a private key PEM
// read for its public key), or text: a SHA-256 fingerprint (64 hex digits) or a
// base64 SPKI. It returns the SPKI or the fingerprint.
func readKeyArg(arg string) (spki []byte, fingerprint string, err error) {
	data, ferr := os.ReadFile(arg)
	if ferr != nil {
		data = []byte(arg)
	}
	text := strings.TrimSpace(string(data))
	if block, _ := pem.Decode(data); block != nil {
		if block.Type == "PUBLIC KEY" {
			if _, err := wacz.ParsePublicKey(block.Bytes); err != nil {
				return nil, "", err
			}
			return block.Bytes, "", nil
		}
		key, err := waczauth.ParsePrivateKey(data)
		if err != nil {
			return nil, "", err
		}
		spki, err := wacz.MarshalPublicKey(&key.PublicKey)
		return spki, "", err
	}
	if fp := strings.ToLower(strings.TrimPrefix(text, "sha256:")); len(fp) == 64 {
		if _, err := hex.DecodeString(fp); err == nil {
			return nil, fp, nil
		}
	}
	if der, err := base64.StdEncoding.DecodeString(text); err == nil {
		if _, err := wacz.ParsePublicKey(der); err == nil {
			return der, "", nil
		}
	}
	if ferr != nil && !bytes.ContainsAny(data, "\n") && (strings.ContainsRune(arg, os.PathSeparator) || strings.HasSuffix(arg, ".pem")) {
		return nil, "", ferr
	}
	return nil, "", fmt.Errorf("%.80q is no public key PEM file, fingerprint (64 hex digits) or base64 SPKI of an ECDSA key", arg)
}
