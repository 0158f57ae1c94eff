package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/wacz"
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
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: webkeep wacz verify [--key KEY] FILE.wacz\n\n", waczVerifyHelp, "\nflags:\n")
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
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(stdout, "FAIL  "+p.String())
	}
	if more := rep.Failed - len(rep.Problems); more > 0 {
		fmt.Fprintf(stdout, "FAIL  and %d more problems\n", more)
	}
	what := fmt.Sprintf("%d files, %d WARC records, %d index lines", rep.Files, rep.Records, rep.IndexLines)
	signed := "not signed"
	if s := rep.Signature; s != nil && s.Valid {
		signed = fmt.Sprintf("signed by key %s (ECDSA %s) on %s", s.Fingerprint, s.Curve, s.Created)
	} else if s != nil {
		signed = "its signature does not hold"
	}
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

const waczVerifyHelp = `Checks a WACZ: each file against datapackage.json (size and SHA-256) and no file
missing or unlisted; each WARC record (whole, its gzip member, its block and payload
digests); each line of the index against the record at its offset (length,
digest, URL, time), and each block of a compressed index against index.idx; the
hash of datapackage.json in datapackage-digest.json; and its signature (WACZ
signing 0.1.0, anonymous form: ECDSA, SHA-256) with the public key it holds.
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
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: webkeep wacz sign --key KEY.pem IN.wacz OUT.wacz\n\nSigns a WACZ that verifies (webkeep wacz verify) with an ECDSA key: OUT is IN with\na signed datapackage-digest.json (WACZ signing 0.1.0, anonymous form).\n\nflags:\n")
		fs.PrintDefaults()
	}
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if *keyFile == "" || len(files) != 2 {
		fs.Usage()
		return 2
	}
	in, out := files[0], files[1]
	key, err := readPrivateKey(*keyFile)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz sign: %v\n", err)
		return 1
	}
	signer, err := wacz.NewECDSASigner(key)
	if err != nil {
		fmt.Fprintf(stderr, "webkeep wacz sign: %s: %v\n", *keyFile, err)
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
	if err := writeSigned(zr, out, signer); err != nil {
		fmt.Fprintf(stderr, "webkeep wacz sign: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: signed by key %s\n", out, wacz.Fingerprint(signer.PublicKey()))
	return 0
}

// writeSigned writes the WACZ zr to out, through a temporary file beside it, with its
// datapackage-digest.json signed.
func writeSigned(zr *zip.Reader, out string, signer wacz.Signer) error {
	var manifest []byte
	for _, f := range zr.File {
		if f.Name == wacz.DatapackagePath {
			rc, err := f.Open()
			if err != nil {
				return err
			}
			manifest, err = io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return err
			}
		}
	}
	digest, err := wacz.SignManifest(manifest, signer, timeNow(), "webkeep")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".wacz-*")
	if err != nil {
		return err
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
	return commitFile(tmp, bw, out, err)
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
	key, err := wacz.GenerateKey()
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
	key, err := parsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return key, nil
}

func parsePrivateKey(data []byte) (*ecdsa.PrivateKey, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM private key (PRIVATE KEY or EC PRIVATE KEY) in it")
		}
		switch block.Type {
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, err
			}
			ek, ok := k.(*ecdsa.PrivateKey)
			if !ok {
				return nil, fmt.Errorf("a %T, not an ECDSA key", k)
			}
			return ek, nil
		case "EC PRIVATE KEY":
			return x509.ParseECPrivateKey(block.Bytes)
		}
	}
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
		key, err := parsePrivateKey(data)
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
