package capture

import (
	"archive/zip"
	"bytes"
	"cmp"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/warc"
)

// payloadDigest is the digest of a payload as CDXJ lines give it.
func payloadDigest(b []byte) string {
	sum := sha1.Sum(b)
	return base32.StdEncoding.EncodeToString(sum[:])
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// Responses of the dedup fixture, by the last segment of their URL.
const (
	dxLogo  = "logo.png"  // 200
	dxCopy  = "copy.png"  // 200, logo.png's payload again: the session's own revisit
	dxSave  = "save"      // a POST answered 201
	dxOther = "other.bin" // 200
	dxGone  = "gone"      // 404 with a body
	dxEmpty = "empty"     // 200 without a body
	dxCut   = "cut"       // 200, its body cut at the body limit
	dxTiny  = "tiny"      // 200 with a two-byte body: its revisit would be longer
)

// dxAsked are the fixture's responses whose payloads the team archive is asked
// about: 2xx, a payload, and not a revisit already (copy.png is logo.png's).
var dxAsked = []string{dxLogo, dxSave, dxOther, dxCut, dxTiny}

// dedupFixture is a session whose responses cover every case of deduplication on
// upload, and the payload of each response by name.
type dedupFixture struct {
	sess     *Session
	payloads map[string][]byte
}

func newDedupFixture(t *testing.T, store Store, svc *Service) *dedupFixture {
	t.Helper()
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	sess, err := createSession(store, "dedup", t0)
	if err != nil {
		t.Fatal(err)
	}
	if svc != nil {
		svc.sessions.add(sess)
	}
	f := &dedupFixture{sess: sess, payloads: map[string][]byte{}}
	get := func(i int, name string, status int, body []byte) *recorder.Exchange {
		f.payloads[name] = body
		return &recorder.Exchange{Started: t0.Add(time.Duration(i) * time.Second), Method: "GET", URL: "http://example.org/" + name,
			ReqHeader: recorder.Fields{{Name: "User-Agent", Value: "test"}}, Status: status, StatusText: "X", RemoteIP: "192.0.2.7",
			RespHeader: recorder.Fields{{Name: "Content-Type", Value: "application/octet-stream"}, {Name: "X-Kept", Value: name}}, RespBody: body}
	}
	logo := randomBytes(6000)
	f.payloads[dxSave] = randomBytes(3000)
	exs := []*recorder.Exchange{
		get(0, dxLogo, 200, logo),
		{Started: t0.Add(time.Second), Method: "POST", URL: "http://example.org/" + dxSave, RemoteIP: "192.0.2.7",
			ReqHeader: recorder.Fields{{Name: "Content-Type", Value: "application/x-www-form-urlencoded"}, {Name: "Content-Length", Value: "7"}}, ReqBody: []byte("a=1&b=2"),
			Status: 201, StatusText: "Created", RespHeader: recorder.Fields{{Name: "Content-Type", Value: "application/json"}, {Name: "X-Kept", Value: dxSave}},
			RespBody: f.payloads[dxSave]},
		get(2, dxCopy, 200, logo),
		get(3, dxOther, 200, randomBytes(5000)),
		get(4, dxGone, 404, randomBytes(4000)),
		get(5, dxEmpty, 200, nil),
		get(6, dxCut, 200, randomBytes(1000)),
		get(7, dxTiny, 200, []byte("ok")),
	}
	exs[6].RespTruncated = "length"
	for _, ex := range exs {
		if err := sess.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// digest returns the digest of the fixture's payload of name.
func (f *dedupFixture) digest(name string) string { return payloadDigest(f.payloads[name]) }

// holderOf is the team's capture of the payload of name, in bundle "team-a.zip".
func holderOf(name string) teamHolder {
	return teamHolder{URL: "http://team.example/a/" + name, Timestamp: "20260101120000", Source: "team-a.zip"}
}

// known is what a team archive answers when it holds the fixture's payloads of names.
func (f *dedupFixture) known(names ...string) map[string]teamHolder {
	out := map[string]teamHolder{}
	for _, n := range names {
		out[f.digest(n)] = holderOf(n)
	}
	return out
}

// sessionWARC is the session's own WARC.
func sessionWARC(t *testing.T, sess *Session) []byte {
	t.Helper()
	r, err := sess.WARC()
	return readAll(t, r, err)
}

// bundleFiles reads a bundle zip's files.
func bundleFiles(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		r, err := f.Open()
		out[f.Name] = readAll(t, r, err)
		r.Close()
	}
	return out
}

// warcRecord is a record as shared/warc reads it back, with its block and its raw
// header.
type warcRecord struct {
	*warc.Record
	block, raw []byte
}

func readWARC(t *testing.T, b []byte) []warcRecord {
	t.Helper()
	rd, err := warc.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out []warcRecord
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		raw := bytes.Clone(rd.RawHeader())
		block, err := io.ReadAll(rec.Block)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, warcRecord{rec, block, raw})
	}
}

// verifyWARC checks every length, digest and sl field of a WARC.
func verifyWARC(t *testing.T, b []byte) {
	t.Helper()
	v := warc.NewVerifier(func(p warc.Problem) { t.Errorf("WARC: %v", p) })
	if err := v.Verify("bundle", bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
}

// indexOf is what shared/cdx's Indexer makes of a WARC, sorted as a bundle's .cdxj.
func indexOf(t *testing.T, w []byte, filename string) []byte {
	t.Helper()
	var lines [][]byte
	ix := &cdx.Indexer{Dialect: cdx.Pywb267}
	if err := ix.Index(bytes.NewReader(w), filename, func(e *cdx.Entry) error {
		lines = append(lines, bytes.TrimSuffix(e.AppendLine(nil, cdx.Pywb267), []byte("\n")))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return sortedLines(lines)
}

// lastSegment is the last path segment of a URL.
func lastSegment(u string) string { return u[strings.LastIndexByte(u, '/')+1:] }

// checkTeamWARC checks the WARC written for the team (got) against the session's
// (orig): the same records in the same order, but for the responses of revisits (by
// name), each a revisit referring to known's capture of its payload with the
// response's HTTP header and no payload, and for the session's own revisits of
// those, repointed at the same capture.
func checkTeamWARC(t *testing.T, f *dedupFixture, orig, got []warcRecord, known map[string]teamHolder, revisits, repointed []string) {
	t.Helper()
	if len(got) != len(orig) {
		t.Fatalf("%d records, the session has %d", len(got), len(orig))
	}
	for i, g := range got {
		o := orig[i]
		name := lastSegment(o.TargetURI)
		if g.ID != o.ID || g.TargetURI != o.TargetURI || !g.Date.Equal(o.Date) {
			t.Errorf("record %d: %s %s %v, the session's is %s %s %v", i, g.ID, g.TargetURI, g.Date, o.ID, o.TargetURI, o.Date)
			continue
		}
		isRevisit := o.Type == warc.TypeResponse && slices.Contains(revisits, name)
		isRepointed := o.Type == warc.TypeRevisit && slices.Contains(repointed, name)
		if !isRevisit && !isRepointed {
			if g.Type != o.Type || !slices.Equal(g.Header, o.Header) || !bytes.Equal(g.block, o.block) {
				t.Errorf("%s record of %s changed: %s %v", o.Type, name, g.Type, g.Header)
			}
			continue
		}
		d := f.digest(name)
		h, ok := known[d]
		if !ok {
			t.Fatalf("%s: the team holds no payload %s", name, d)
		}
		related := g.Header.Values(warc.FieldRelatedRecordID)
		origRelated := o.Header.Values(warc.FieldRelatedRecordID)
		want := warc.Header{
			{Name: warc.FieldRelatedRecordID, Value: "urn:webkeep:team:" + h.Source + ":" + h.Timestamp + ":" + d},
		}
		if g.Type != warc.TypeRevisit || len(related) != 2 || related[0] != want[0].Value || related[1] != origRelated[len(origRelated)-1] {
			t.Errorf("%s: %s record related to %q, want a revisit related to %q and the request %q", name, g.Type, related, want[0].Value, origRelated[len(origRelated)-1])
		}
		for _, fv := range []warc.Field{
			{Name: warc.FieldPayloadDigest, Value: "sha1:" + d},
			{Name: warc.FieldProfile, Value: warc.ProfileIdenticalPayload},
			{Name: warc.FieldRefersToTargetURI, Value: h.URL},
			{Name: warc.FieldRefersToDate, Value: "2026-01-01T12:00:00Z"},
			{Name: warc.FieldIPAddress, Value: "192.0.2.7"},
		} {
			if v := g.Header.Values(fv.Name); len(v) != 1 || v[0] != fv.Value {
				t.Errorf("%s: %s %q, want %q", name, fv.Name, v, fv.Value)
			}
		}
		if g.Header.Has(warc.FieldTruncated) {
			t.Errorf("%s: marked truncated", name)
		}
		// The HTTP header kept whole, the payload left out.
		head := o.block
		if isRevisit {
			head = o.block[:len(o.block)-len(f.payloads[name])]
		}
		if !bytes.Equal(g.block, head) || g.BlockLength != int64(len(head)) || !bytes.HasSuffix(head, []byte("\r\n\r\n")) || !bytes.Contains(head, []byte("X-Kept: ")) {
			t.Errorf("%s: block %q (%d bytes), want the response's HTTP header %q", name, g.block, g.BlockLength, head)
		}
	}
}

// cdxLines are the lines of a .cdxj by the last segment of their URL.
func cdxLines(t *testing.T, index []byte) map[string]cdx.Entry {
	t.Helper()
	out := map[string]cdx.Entry{}
	for _, l := range bytes.Split(bytes.TrimSpace(index), []byte("\n")) {
		e, err := cdx.ParseEntry(l)
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		out[lastSegment(e.URL)] = e
	}
	return out
}

// checkTeamIndex checks a bundle's .cdxj for the team: the lines shared/cdx's
// Indexer makes of its WARC, revisits as pywb indexes them (mime warc/revisit, the
// payload's digest, no status, a POST still under its method's key).
func checkTeamIndex(t *testing.T, f *dedupFixture, files map[string][]byte, revisits []string) {
	t.Helper()
	w, index := files[f.sess.BaseName()+".warc.gz"], files[f.sess.BaseName()+".cdxj"]
	if want := indexOf(t, w, f.sess.BaseName()+".warc.gz"); !bytes.Equal(index, want) {
		t.Errorf("the bundle's index:\n%s\nshared/cdx's of its WARC:\n%s", index, want)
	}
	lines := cdxLines(t, index)
	for name, e := range lines {
		revisit := slices.Contains(revisits, name) || name == dxCopy
		if revisit != (e.Mime == "warc/revisit") {
			t.Errorf("%s: mime %s", name, e.Mime)
		}
		if revisit && (e.Status != "" || e.Digest != f.digest(name)) {
			t.Errorf("%s: revisit line with status %q, digest %s (want %s)", name, e.Status, e.Digest, f.digest(name))
		}
	}
	if e := lines[dxSave]; !strings.HasSuffix(e.URLKey, "/save?__wb_method=post&a=1&b=2") || e.Method != "POST" || e.RequestBody != "a=1&b=2" {
		t.Errorf("the POST's line: %+v", e)
	}
}

// Responses whose payloads the team holds become revisit records in the bundle
// written for it; nothing else changes, and the bundle's index is its WARC's.
func TestTeamBundleRevisits(t *testing.T) {
	f := newDedupFixture(t, NewMemStore(), nil)
	var plain bytes.Buffer
	if err := f.sess.WriteBundle(&plain); err != nil {
		t.Fatal(err)
	}
	origWARC := sessionWARC(t, f.sess)
	orig := readWARC(t, origWARC)
	for _, tc := range []struct {
		name      string
		known     []string // the payloads the team holds
		revisits  []string // responses written as revisits
		repointed []string // the session's revisits pointed at the team's capture
	}{
		{name: "the team holds none"},
		{name: "a payload the session has twice", known: []string{dxLogo}, revisits: []string{dxLogo}, repointed: []string{dxCopy}},
		{name: "a POST's answer", known: []string{dxSave}, revisits: []string{dxSave}},
		{name: "payloads not worth a revisit", known: []string{dxGone, dxEmpty, dxCut, dxTiny}},
		{name: "all", known: []string{dxLogo, dxSave, dxOther, dxGone, dxEmpty, dxCut, dxTiny},
			revisits: []string{dxLogo, dxSave, dxOther}, repointed: []string{dxCopy}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			known := f.known(tc.known...)
			var b bytes.Buffer
			st, err := f.sess.writeBundle(&b, known)
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.revisits) == 0 {
				if !bytes.Equal(b.Bytes(), plain.Bytes()) || st != (teamRewriteStats{}) {
					t.Errorf("with no revisit to write, a bundle of %d bytes (%+v), not the session's", b.Len(), st)
				}
				return
			}
			files := bundleFiles(t, b.Bytes())
			w := files[f.sess.BaseName()+".warc.gz"]
			verifyWARC(t, w)
			checkTeamWARC(t, f, orig, readWARC(t, w), known, tc.revisits, tc.repointed)
			checkTeamIndex(t, f, files, tc.revisits)
			if st.Revisits != len(tc.revisits) || st.Repointed != len(tc.repointed) {
				t.Errorf("%+v, want %d revisits, %d repointed", st, len(tc.revisits), len(tc.repointed))
			}
			if saved := int64(len(origWARC) - len(w)); st.BytesSaved != saved || saved <= 0 {
				t.Errorf("bytes saved %d, the WARCs differ by %d", st.BytesSaved, saved)
			}
			for name, data := range bundleFiles(t, plain.Bytes()) {
				if !strings.HasSuffix(name, ".warc.gz") && !strings.HasSuffix(name, ".cdxj") && !bytes.Equal(files[name], data) {
					t.Errorf("%s differs from the session's bundle", name)
				}
			}
			// Written again from the same answers, the bundle is the same bytes.
			var again bytes.Buffer
			if _, err := f.sess.writeBundle(&again, known); err != nil || !bytes.Equal(again.Bytes(), b.Bytes()) {
				t.Errorf("written again: %d bytes, %v; first %d", again.Len(), err, b.Len())
			}
		})
	}
}

// A response in segments is never a revisit: its index line's digest is that of
// its first segment's payload only.
func TestTeamBundleKeepsSegments(t *testing.T) {
	store := NewMemStore()
	sess, err := createSession(store, "big", time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.WriteExchange(&recorder.Exchange{Started: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC), Method: "GET", URL: "http://example.org/big",
		Status: 200, StatusText: "OK", RespBody: randomBytes(maxRecordBuffer + 1000)}); err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	sess.WriteBundle(&plain)
	index, _ := sess.SortedCDX()
	known := map[string]teamHolder{}
	for _, e := range cdxLines(t, index) {
		known[e.Digest] = holderOf("big")
	}
	var b bytes.Buffer
	st, err := sess.writeBundle(&b, known)
	if err != nil || !bytes.Equal(b.Bytes(), plain.Bytes()) || st.Revisits != 0 {
		t.Errorf("bundle of %d bytes (%+v, %v), want the session's %d", b.Len(), st, err, plain.Len())
	}
}

// The same, for a WARC/1.1 file: the revisit's fields are WARC/1.1's, refers-to
// ones included (what shared/warc's WARC/1.1 writer gives a revisit of its own).
func TestTeamWARC11Revisits(t *testing.T) {
	f := newDedupFixture(t, NewMemStore(), nil)
	var w11 bytes.Buffer
	if err := f.sess.WriteWARC11(&w11); err != nil {
		t.Fatal(err)
	}
	known := f.known(dxLogo, dxSave)
	var targets []teamTarget
	for _, e := range cdxLines(t, indexOf(t, w11.Bytes(), "s.warc.gz")) {
		if _, ok := known[e.Digest]; ok {
			targets = append(targets, teamTarget{offset: e.Offset, length: e.Length, digest: e.Digest, revisit: e.Mime == "warc/revisit"})
		}
	}
	slices.SortFunc(targets, func(a, b teamTarget) int { return cmp.Compare(a.offset, b.offset) })
	var out bytes.Buffer
	st, err := writeTeamWARC(&out, bytes.NewReader(w11.Bytes()), targets, known)
	if err != nil || st.Revisits != 2 || st.Repointed != 1 || st.BytesSaved != int64(w11.Len()-out.Len()) {
		t.Fatalf("%+v, %v (%d bytes less)", st, err, w11.Len()-out.Len())
	}
	verifyWARC(t, out.Bytes())
	got := readWARC(t, out.Bytes())
	checkTeamWARC(t, f, readWARC(t, w11.Bytes()), got, known, []string{dxLogo, dxSave}, []string{dxCopy})
	for _, r := range got {
		if r.Type != warc.TypeRevisit || lastSegment(r.TargetURI) != dxLogo {
			continue
		}
		h := holderOf(dxLogo)
		for _, line := range []string{
			"WARC/1.1\r\n", "WARC-Type: revisit\r\n",
			"WARC-Refers-To: <urn:webkeep:team:team-a.zip:20260101120000:" + f.digest(dxLogo) + ">\r\n",
			"WARC-Concurrent-To: <", "WARC-Payload-Digest: sha1:" + f.digest(dxLogo) + "\r\n",
			"WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\n",
			"WARC-Refers-To-Target-URI: " + h.URL + "\r\n", "WARC-Refers-To-Date: 2026-01-01T12:00:00Z\r\n",
			"Content-Type: application/http;msgtype=response\r\n", fmt.Sprintf("Content-Length: %d\r\n", len(r.block)),
		} {
			if !bytes.Contains(r.raw, []byte(line)) {
				t.Errorf("the revisit's header has no %q:\n%s", line, r.raw)
			}
		}
		if bytes.Contains(r.raw, []byte("WARC-Truncated")) {
			t.Errorf("the revisit is marked truncated:\n%s", r.raw)
		}
	}
}

// digestAnswers answers POST /api/digests as a Worker holding the payloads of
// known does; old answers 404, as a Worker older than the call. It logs what it is
// asked.
type digestAnswers struct {
	mu    sync.Mutex
	known map[string]teamHolder
	old   bool
	asked [][]string
}

func (d *digestAnswers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer s3cret" {
		teamFail(w, http.StatusUnauthorized, "no")
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var q struct{ Digests []string }
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil || len(q.Digests) > 1000 {
		teamFail(w, http.StatusBadRequest, fmt.Sprintf("%d digests, %v", len(q.Digests), err))
		return
	}
	d.asked = append(d.asked, q.Digests)
	if d.old {
		teamFail(w, http.StatusNotFound, "no such route")
		return
	}
	known := map[string]teamHolder{}
	for _, dg := range q.Digests {
		if h, ok := d.known[dg]; ok {
			known[dg] = h
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"known": known})
}

func (d *digestAnswers) calls() [][]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.asked)
}

// uploadedBundle is the bundle of sess the archive has.
func uploadedBundle(t *testing.T, a *teamArchive, sess *Session) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", a.URL+"/api/bundles/"+sess.BaseName()+".zip", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the archive answers %d: %s", resp.StatusCode, b)
	}
	return b
}

// uploadResult is an upload job's result.
type uploadResult struct {
	Name  string
	Size  int64
	Dedup *teamDedupResult
}

func resultOf(t *testing.T, job Job) uploadResult {
	t.Helper()
	var res uploadResult
	b, _ := json.Marshal(job.Result)
	if err := json.Unmarshal(b, &res); err != nil || res.Dedup == nil {
		t.Fatalf("result %s: %v", b, err)
	}
	return res
}

// An upload asks the team archive which of the session's payloads it holds (those
// worth a revisit, each once) and sends a bundle with revisits for them; an older
// Worker, answering 404, gets the session's bundle.
func TestUploadDeduplicatesAgainstTheTeam(t *testing.T) {
	for _, tc := range []struct {
		name     string
		known    []string // the payloads the team holds
		old      bool
		holder   func(h teamHolder, sess *Session) teamHolder // as the Worker answers
		revisits []string
		asked    int
	}{
		{name: "the team holds some", known: []string{dxLogo, dxSave, dxGone}, revisits: []string{dxLogo, dxSave}, asked: len(dxAsked)},
		{name: "the team holds none", asked: len(dxAsked)},
		{name: "an older Worker", known: []string{dxLogo}, old: true},
		{name: "held by the bundle being replaced", known: []string{dxLogo, dxSave}, asked: len(dxAsked),
			holder: func(h teamHolder, sess *Session) teamHolder { h.Source = sess.BaseName() + ".zip"; return h }},
		{name: "answers that name no capture", known: []string{dxLogo, dxSave}, asked: len(dxAsked),
			holder: func(h teamHolder, sess *Session) teamHolder { h.Timestamp = "2026"; h.Source = "a b"; return h }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTeamArchive(t)
			store := NewMemStore()
			svc := teamService(t, store, a, http.DefaultTransport)
			f := newDedupFixture(t, store, svc)
			answers := &digestAnswers{known: f.known(tc.known...), old: tc.old}
			if tc.holder != nil {
				for d, h := range answers.known {
					answers.known[d] = tc.holder(h, f.sess)
				}
			}
			a.digests = answers
			job, err := svc.team.upload(f.sess.info.ID, false)
			if err != nil {
				t.Fatal(err)
			}
			done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID)
			if done.State != "done" {
				t.Fatalf("upload: %+v", done)
			}
			got := uploadedBundle(t, a, f.sess)
			var want bytes.Buffer
			used := f.known(tc.revisits...)
			if _, err := f.sess.writeBundle(&want, used); err != nil || !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("the archive has a bundle of %d bytes, want %d (%v)", len(got), want.Len(), err)
			}
			files := bundleFiles(t, got)
			w := files[f.sess.BaseName()+".warc.gz"]
			var repointed []string
			if slices.Contains(tc.revisits, dxLogo) {
				repointed = []string{dxCopy}
			}
			checkTeamWARC(t, f, readWARC(t, sessionWARC(t, f.sess)), readWARC(t, w), used, tc.revisits, repointed)
			checkTeamIndex(t, f, files, tc.revisits)

			calls := answers.calls()
			var asked []string
			for _, c := range calls {
				asked = append(asked, c...)
			}
			var wantAsked []string
			for _, n := range dxAsked {
				wantAsked = append(wantAsked, f.digest(n))
			}
			slices.Sort(wantAsked)
			if len(calls) != 1 || !slices.Equal(asked, wantAsked) {
				t.Errorf("asked %d times %v, want once %v", len(calls), asked, wantAsked)
			}
			res := resultOf(t, done)
			saved := int64(len(sessionWARC(t, f.sess)) - len(w))
			if res.Name != f.sess.BaseName()+".zip" || res.Size != int64(len(got)) ||
				*res.Dedup != (teamDedupResult{Revisits: len(tc.revisits), BytesSaved: saved, Asked: tc.asked}) {
				t.Errorf("result %+v %+v, want %d revisits, %d bytes saved, %d asked", res, *res.Dedup, len(tc.revisits), saved, tc.asked)
			}
			if len(tc.revisits) > 0 && saved <= 0 {
				t.Errorf("nothing saved: %d", saved)
			}
		})
	}
}

// At most 1000 digests are asked at once.
func TestUploadAsksForDigestsInBatches(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	svc := teamService(t, store, a, http.DefaultTransport)
	sess, err := createSession(store, "many", time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	svc.sessions.add(sess)
	const n = 2*maxDigestsAsked + 5
	answers := &digestAnswers{known: map[string]teamHolder{}}
	for i := range n {
		body := fmt.Appendf(nil, "payload %d", i)
		if i%500 == 0 {
			answers.known[payloadDigest(body)] = holderOf("p")
		}
		if err := sess.WriteExchange(&recorder.Exchange{Started: time.Date(2026, 11, 23, 9, 0, i%60, 0, time.UTC), Method: "GET",
			URL: fmt.Sprintf("http://example.org/p/%d", i), Status: 200, StatusText: "OK", RespBody: body}); err != nil {
			t.Fatal(err)
		}
	}
	a.digests = answers
	d, err := svc.team.askDigests(t.Context(), sess, sess.BaseName()+".zip")
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	seen := map[string]bool{}
	for _, c := range answers.calls() {
		sizes = append(sizes, len(c))
		for _, dg := range c {
			seen[dg] = true
		}
	}
	if !slices.Equal(sizes, []int{1000, 1000, 5}) || len(seen) != n || d.Asked != n || !maps.Equal(d.Known, answers.known) {
		t.Errorf("calls of %v digests (%d distinct), asked %d, known %d of %d", sizes, len(seen), d.Asked, len(d.Known), len(answers.known))
	}
}

// A resumed upload writes its bundle from the answers the archive gave when it
// began, not from what it would answer now: the parts already sent are the same, and
// are not sent again.
func TestUploadDedupResumes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		restart bool // the service worker stops in the middle of a part
	}{{name: "uploaded again after a failure"}, {name: "resumed after a restart", restart: true}} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTeamArchive(t)
			store := NewMemStore()
			failing := &flakyTransport{fail: "3", failures: partAttempts}
			if tc.restart {
				failing = &flakyTransport{fail: "3", block: make(chan struct{}), blocked: make(chan struct{})}
			}
			svc := teamService(t, store, a, failing)
			f := newDedupFixture(t, store, svc)
			if tc.restart {
				// The stopped service's job ends (it cannot send the part) before the
				// test does.
				defer func() {
					close(failing.block)
					waitJob(t, nethttp.Handler(svc.Handler()), "upload-"+f.sess.info.ID)
				}()
			}
			answers := &digestAnswers{known: f.known(dxLogo, dxOther)}
			a.digests = answers
			job, _ := svc.team.upload(f.sess.info.ID, false)
			if tc.restart {
				<-failing.blocked
			} else if done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID); done.State != "failed" {
				t.Fatalf("upload with the network down: %+v", done)
			}
			st, err := loadUploadState(store, f.sess.info.ID)
			if err != nil || st.Dedup == nil || len(st.Dedup.Known) != 2 || st.Dedup.Asked != len(dxAsked) {
				t.Fatalf("the upload's state: %+v, %v", st, err)
			}
			// The team's holdings change; the upload goes on with what it was told.
			answers.mu.Lock()
			answers.known = f.known(dxSave)
			answers.mu.Unlock()
			h := nethttp.Handler(svc.Handler())
			if tc.restart {
				second, err := NewService(store, newFakeHost())
				if err != nil {
					t.Fatal(err)
				}
				h = nethttp.Handler(second.Handler())
			} else {
				svc.http.test = nethttp.Client{Client: &http.Client{}}
				job, _ = svc.team.upload(f.sess.info.ID, false)
			}
			done := waitJob(t, h, job.ID)
			if done.State != "done" {
				t.Fatalf("resumed upload: %+v", done)
			}
			if calls := answers.calls(); len(calls) != 1 {
				t.Errorf("the archive was asked about digests %d times, want once", len(calls))
			}
			sent := a.partsSent()
			for n, times := range sent {
				if times != 1 {
					t.Errorf("part %s sent %d times (parts sent %v)", n, times, sent)
				}
			}
			var want bytes.Buffer
			f.sess.writeBundle(&want, f.known(dxLogo, dxOther))
			if got := uploadedBundle(t, a, f.sess); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("the archive has %d bytes, want the bundle with revisits of %d", len(got), want.Len())
			}
			if res := resultOf(t, done); res.Dedup.Revisits != 2 || res.Dedup.Asked != len(dxAsked) {
				t.Errorf("result %+v", *res.Dedup)
			}
			if keys, _ := store.Keys(teamUploadPrefix); len(keys) != 0 {
				t.Errorf("left in the store: %v", keys)
			}
		})
	}
}

// An upload begun before the archive was asked about payloads (its state has no
// answers: an older version began it) resumes as it began, without revisits.
func TestUploadBegunWithoutDedupResumesWithout(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	svc := teamService(t, store, a, &flakyTransport{fail: "3", failures: partAttempts})
	f := newDedupFixture(t, store, svc)
	answers := &digestAnswers{old: true}
	a.digests = answers
	job, _ := svc.team.upload(f.sess.info.ID, false)
	if done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID); done.State != "failed" {
		t.Fatalf("upload with the network down: %+v", done)
	}
	st, err := loadUploadState(store, f.sess.info.ID)
	if err != nil {
		t.Fatal(err)
	}
	st.Dedup = nil
	st.save(store)
	answers.mu.Lock()
	answers.old, answers.known = false, f.known(dxLogo)
	answers.mu.Unlock()
	svc.http.test = nethttp.Client{Client: &http.Client{}}
	job, _ = svc.team.upload(f.sess.info.ID, false)
	done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID)
	if done.State != "done" {
		t.Fatalf("resumed upload: %+v", done)
	}
	if res := resultOf(t, done); *res.Dedup != (teamDedupResult{}) || len(answers.calls()) != 1 {
		t.Errorf("result %+v, asked %d times (want once, the older Worker)", *res.Dedup, len(answers.calls()))
	}
	wantUploaded(t, a, store, f.sess)
}

// Against a real team archive (shared/teamarchive): a second session with a payload
// the first one uploaded sends a revisit of it, and replay from the team archive
// answers that revisit with the first session's payload.
func TestUploadDedupReplaysFromTheTeam(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	svc := teamService(t, store, a, http.DefaultTransport)
	h := nethttp.Handler(svc.Handler())
	f := newDedupFixture(t, store, svc)

	first, err := createSession(store, "first", time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	svc.sessions.add(first)
	if err := first.WriteExchange(&recorder.Exchange{Started: time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC), Method: "GET", URL: "http://example.org/first/logo.png",
		Status: 200, StatusText: "OK", RespHeader: recorder.Fields{{Name: "Content-Type", Value: "image/png"}}, RespBody: f.payloads[dxLogo]}); err != nil {
		t.Fatal(err)
	}
	for _, sess := range []*Session{first, f.sess} {
		job, err := svc.team.upload(sess.info.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		done := waitJob(t, h, job.ID)
		if done.State != "done" {
			t.Fatalf("upload of %s: %+v", sess.info.Name, done)
		}
		want := teamDedupResult{Asked: 1}
		if sess == f.sess {
			w := bundleFiles(t, uploadedBundle(t, a, sess))[sess.BaseName()+".warc.gz"]
			want = teamDedupResult{Revisits: 1, Asked: len(dxAsked), BytesSaved: int64(len(sessionWARC(t, sess)) - len(w))}
		}
		if res := resultOf(t, done); *res.Dedup != want {
			t.Errorf("upload of %s: %+v, want %+v", sess.info.Name, *res.Dedup, want)
		}
	}
	for _, name := range []string{dxLogo, dxCopy} {
		u := "http://example.org/" + name
		ans, body, rec := teamAnswer(t, h, "20261123090000", "GET", u, nil, "")
		if rec.Code != http.StatusOK || !ans.Archived || ans.Status != 200 || body != string(f.payloads[dxLogo]) || trHeader(ans, "X-Kept") != name {
			t.Errorf("%s from the team archive: %d %+v, %d bytes", u, rec.Code, ans, len(body))
		}
	}
}
