// Package api defines the JSON of the core's HTTP API (docs/api.md): the answers
// shared/capture's Handler sends and the bodies it takes. The core and the extension's
// pages (wasm/ui) both use these types, so what one sends is what the other reads.
//
// The package holds types only and imports neither net/http nor the archive formats:
// the pages' ui.wasm imports it and stays small.
package api

import (
	"encoding/json"
	"time"
)

// SessionInfo describes a recording session: GET /api/sessions/{id}, and what the
// archive page lists.
type SessionInfo struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	Records   int       `json:"records"`   // WARC records written
	Exchanges int       `json:"exchanges"` // HTTP exchanges recorded
	NonGET    int       `json:"nonGet"`    // exchanges whose method is not GET
	Pages     int       `json:"pages"`
	// Restored counts the pages (among Pages) the browser showed again from its
	// back/forward cache, making no request (see Page.Restored).
	Restored int `json:"restored,omitempty"`
	Failures int `json:"failures"` // exchanges that ended without a response
	// Incomplete counts the exchanges archived with a body marked Truncated (request
	// or response): not byte for byte what went over the wire.
	Incomplete int `json:"incomplete"`
	// Reasons counts the exchanges that ended without a response or were archived
	// incomplete, and the requests lost unrecorded (under way as webkeep's service
	// worker stopped), by reason in plain words ("cancelled by the browser"): what
	// the popup and the archive page list.
	Reasons map[string]int `json:"reasons,omitempty"`
	// LoginPosts counts the requests whose body holds a password field (a login
	// form posted): the archive page marks such sessions.
	LoginPosts int           `json:"loginPosts"`
	Bytes      int64         `json:"bytes"`    // size of the session's .warc.gz
	Notes      []string      `json:"notes"`    // problems the user should know of; never null
	Verdicts   VerdictCounts `json:"verdicts"` // URL-database checks of recorded responses
	Imported   bool          `json:"imported,omitempty"`
	// Verification is what importing a WACZ found of it: its signature, and
	// whether its files, records and index hold. Only imported WACZs have one.
	Verification *Verification `json:"verification,omitempty"`
}

// Verification is what checking a WACZ found (shared/wacz Verify): on import, in
// SessionInfo.
type Verification struct {
	OK bool `json:"ok"` // everything checked holds
	// Signed says the WACZ has a signature; SignatureValid that it verifies with
	// the public key it holds (PublicKey, base64 SPKI, whose SHA-256 is
	// Fingerprint), made at Created (as the WACZ says) by Software.
	Signed         bool   `json:"signed"`
	SignatureValid bool   `json:"signatureValid"`
	PublicKey      string `json:"publicKey,omitempty"`
	Fingerprint    string `json:"fingerprint,omitempty"`
	Created        string `json:"created,omitempty"`
	Software       string `json:"software,omitempty"`
	// OwnKey says the WACZ was signed with this browser's key (GET
	// /api/signing-key).
	OwnKey bool `json:"ownKey,omitempty"`
	// Domain is the host name of a signature in wacz-auth's domain-name form, as
	// the WACZ says it: its certificate is not checked in the browser (see
	// Unchecked), so SignatureValid is false for it.
	Domain string `json:"domain,omitempty"`
	// Timestamp is the time an RFC 3161 timestamp authority (TimestampAuthority)
	// stamped the signature at, RFC 3339; the browser checks that it stamps this
	// signature, not the authority's own signature (see Unchecked).
	Timestamp          string `json:"timestamp,omitempty"`
	TimestampAuthority string `json:"timestampAuthority,omitempty"`
	// Unchecked says, in plain words, what the browser could not check.
	Unchecked []string `json:"unchecked,omitempty"`
	// Files, Records and IndexLines count the files, WARC records and index lines
	// checked.
	Files      int `json:"files"`
	Records    int `json:"records"`
	IndexLines int `json:"indexLines"`
	// Problems says what does not hold, in plain words, at most 20 of the
	// Failed.
	Problems []string `json:"problems,omitempty"`
	Failed   int      `json:"failed"`
}

// SigningKey is the public key the extension signs WACZ downloads with: GET
// /api/signing-key.
type SigningKey struct {
	Algorithm   string `json:"algorithm"`   // "ECDSA P-384, SHA-256"
	PublicKey   string `json:"publicKey"`   // base64 SPKI, as a signed WACZ holds it
	Fingerprint string `json:"fingerprint"` // hex SHA-256 of the SPKI
	PEM         string `json:"pem"`         // the public key as a PEM file
	Created     string `json:"created,omitempty"`
}

// VerdictCounts counts the URL database's verdicts on a session's recorded responses.
type VerdictCounts struct {
	Pass int `json:"pass"`
	Fail int `json:"fail"`
}

// Status is the recording state: GET /api/status.
type Status struct {
	Recording bool         `json:"recording"`
	Tabs      []int        `json:"tabs"`
	Session   *SessionInfo `json:"session,omitempty"`
	// Autopilot holds the autopilot runs of the recorded tabs, the last of each
	// tab, running or ended; left out when there is none.
	Autopilot []Autopilot `json:"autopilot,omitempty"`
}

// Autopilot is a run of autopilot in a recorded tab (shared/autopilot): POST
// /api/autopilot/start and /stop, and in Status.
type Autopilot struct {
	Tab     int  `json:"tab"`
	Running bool `json:"running"`
	// State says what it is doing ("scrolling", "clicking", "playing media",
	// "fetching images", "waiting for the network", "done"), and Why, once it has
	// ended, why ("the page stopped growing", "time limit reached", "stopped by the
	// user").
	State string `json:"state"`
	Why   string `json:"why,omitempty"`
	// Summary is the run in a line: "scrolling, 40 items, 3 buttons clicked".
	Summary string `json:"summary"`
	// Items counts the page's items; Scrolls, Clicks, Played, Images and Details
	// the scrolls, buttons clicked, media played, srcset image sizes fetched and
	// <details> openings.
	Items   int `json:"items"`
	Scrolls int `json:"scrolls"`
	Clicks  int `json:"clicks"`
	Played  int `json:"played"`
	Images  int `json:"images"`
	Details int `json:"details"`
}

// Record is one CDXJ line of a session: an element of GET /api/sessions/{id}/records.
type Record struct {
	URLKey    string       `json:"urlkey"`
	Timestamp string       `json:"timestamp"`
	Fields    RecordFields `json:"fields"`
	Verdict   *Verdict     `json:"verdict"`
	// RevisitStatus is a revisit's HTTP status, which its CDXJ line does not carry.
	RevisitStatus int `json:"revisitStatus,omitempty"`
}

// RecordFields are the JSON fields of a CDXJ line as shared/cdx writes them: every
// value a string, numbers included, as pywb does.
type RecordFields struct {
	URL         string `json:"url"`
	Mime        string `json:"mime"`
	Status      string `json:"status,omitempty"`
	Digest      string `json:"digest"`
	Length      string `json:"length"`
	Offset      string `json:"offset"`
	Filename    string `json:"filename"`
	Method      string `json:"method,omitempty"`
	RequestBody string `json:"requestBody,omitempty"`
}

// RecordDetail is one archived record: GET /api/sessions/{id}/record?offset=N.
type RecordDetail struct {
	Offset int64     `json:"offset"`
	Type   string    `json:"type"`
	URI    string    `json:"uri"`
	Date   time.Time `json:"date"`
	ID     string    `json:"id"`
	// Fields are the record's WARC named fields in order; a name may repeat.
	Fields []Field `json:"fields"`
	// HTTP is the start line and headers of the HTTP message the record holds.
	HTTP   string `json:"http,omitempty"`
	Length int64  `json:"blockLength"`
	// Text is the text of a metadata record (a note the recorder wrote about an
	// exchange), its first MaxNoteText bytes.
	Text    string        `json:"text,omitempty"`
	Request *RecordDetail `json:"request,omitempty"` // the paired request of a response
}

// MaxNoteText bounds RecordDetail.Text.
const MaxNoteText = 64 << 10

// Field is one header line: a WARC named field (shared/warc.Field), or an HTTP
// header as it was sent or received.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Verdict is the URL database's judgement of one URL (shared/urldb.CheckResponse).
type Verdict struct {
	URL      string `json:"url"`
	Domain   string `json:"domain,omitempty"`
	Path     string `json:"path,omitempty"`
	OK       bool   `json:"ok"`
	Code     string `json:"code"`
	Problem  string `json:"problem,omitempty"`  // wwturldb's message, e.g. "HTTP 404"
	Note     string `json:"note,omitempty"`     // e.g. "(ignoring JS content-type nit)"
	Status   int    `json:"status,omitempty"`   // HTTP status, 0 without response
	Expected string `json:"expected,omitempty"` // what the record says, when it differs
	Got      string `json:"got,omitempty"`      // what the response says
}

// Page is one top-level document the user visited: an element of
// GET /api/sessions/{id}/pages.
type Page struct {
	ID    string    `json:"id"`
	URL   string    `json:"url"`
	Title string    `json:"title,omitempty"`
	TS    time.Time `json:"ts"`
	TabID int       `json:"tabId"`
	// Canonical and Website are the page's canonical URL and website key under its
	// site's domain rules, when it has some.
	Canonical string `json:"canonical,omitempty"`
	Website   string `json:"website,omitempty"`
	// Restored says the browser showed the page again from its back/forward cache
	// (going back or forward to it): no request was made, so the archive holds no
	// records of this visit; the page's records are those of its earlier load, if
	// that was recorded.
	Restored bool `json:"restored,omitempty"`
	// Thumbnail says the page has a picture, taken once it had loaded:
	// GET /api/sessions/{id}/pages/{page}/thumbnail.
	Thumbnail bool `json:"thumbnail,omitempty"`
	// Check is the page's latest capture check, if it had one.
	Check *CaptureCheck `json:"check,omitempty"`
}

// Report is a session's check report: GET /api/sessions/{id}/report, and the
// report.json of its bundle.
type Report struct {
	Session  SessionInfo `json:"session"`
	Verdicts []Verdict   `json:"verdicts"`
	Sites    []Site      `json:"sites"`
	// Checks are the capture checks of the session's pages, the latest of each.
	Checks []CaptureCheck `json:"checks"`
}

// CaptureCheck is the verdict on one page's replay against what it showed live:
// an element of GET /api/sessions/{id}/checks and of a report's checks.
type CaptureCheck struct {
	Page string `json:"page"` // the page's id
	URL  string `json:"url"`
	TS   string `json:"ts"` // the page's capture time, 14 digits, UTC
	// Verdict is "replays", "differs" or "broken" (shared/capturecheck); Why says
	// why it is not "replays", in plain words.
	Verdict string   `json:"verdict"`
	Why     []string `json:"why"`
	// Missed are the requests the replay made that the archive lacks.
	Missed []string `json:"missed"`
	// PictureDifference (0 to 1) and TextSimilarity (0 to 1) compare the replay
	// with the page as it was live; -1 where there was nothing to compare.
	PictureDifference float64 `json:"pictureDifference"`
	TextSimilarity    float64 `json:"textSimilarity"`
	// Live says whether webkeep had a picture and the text of the page taken live,
	// once it had loaded (its first picture), to compare with.
	Live    bool      `json:"live"`
	Checked time.Time `json:"checked"`
}

// CheckedReplay is what a replay of a page showed, sent by the replay page:
// POST /api/sessions/{id}/checks.
type CheckedReplay struct {
	Page    string `json:"page"`    // the page's id
	Loaded  bool   `json:"loaded"`  // its document loaded whole, at its URL
	Text    string `json:"text"`    // the text it showed
	Picture []byte `json:"picture"` // a JPEG of it, 320 CSS pixels wide (base64 in JSON)
}

// Site is what a recorded site says of itself in /data.txt and /robots.txt.
type Site struct {
	Origin  string    `json:"origin"`
	Checked time.Time `json:"checked"`
	DataTxt SiteFile  `json:"datatxt"`
	Robots  SiteFile  `json:"robots"`
	Agent   string    `json:"agent"`
	Allowed bool      `json:"allowed"` // the page that led here may be crawled by Agent
	Page    string    `json:"page"`
}

// SiteFile is one of a site's rule files.
type SiteFile struct {
	Found    bool      `json:"found"`
	Status   int       `json:"status,omitempty"`
	Format   string    `json:"format,omitempty"` // robots or yaml
	Records  int       `json:"records,omitempty"`
	Datasets []Dataset `json:"datasets,omitempty"`
	Expires  time.Time `json:"expires,omitempty"`
	Error    string    `json:"error,omitempty"`
	// NotFile says why a successful answer is not the file (an HTML page, another
	// media type, text of neither form): the site has none, as with a 404.
	NotFile string `json:"notFile,omitempty"`
}

// Dataset is an entry of a YAML data.txt (shared/datatxt.Dataset). Its keys are the
// Go field names, as the bundles' report.json has always had them.
type Dataset struct {
	Paths       []string
	Name        string
	Title       string
	Description string
	License     string
	Type        string
	Extra       map[string]any // every other key of the entry
	Line        int            // the 1-based line where the entry starts
}

// DatabaseInfo describes the loaded URL database: GET /api/urldb.
type DatabaseInfo struct {
	Loaded   bool         `json:"loaded"`
	Domains  []DomainInfo `json:"domains"`
	Records  int          `json:"records"`
	Problems []string     `json:"problems"`
	// Origins are the match patterns ("https://example.org/*") of the sites Check all
	// fetches: the host access the extension asks the user for before a check, so
	// that it can read sites that do not allow other origins to (CORS).
	Origins []string `json:"origins"`
}

// DomainInfo is one domain file of the URL database.
type DomainInfo struct {
	Name    string `json:"name"`
	Records int    `json:"records"`
}

// AddRecord asks for a recorded response to become a URL database record:
// the body of POST /api/urldb/records.
type AddRecord struct {
	Session    string   `json:"session"`
	Offset     int64    `json:"offset"`
	Categories []string `json:"categories"`
	Static     bool     `json:"static"`
}

// AddedRecord is the answer to AddRecord: the domain file and path of the new record,
// and the record in JSON (shared/urldb.Record).
type AddedRecord struct {
	Domain string          `json:"domain"`
	Path   string          `json:"path"`
	Record json.RawMessage `json:"record"`
}

// CheckRequest starts a check of every URL of the database: the body of
// POST /api/urldb/check. With Record set, the responses are archived into Session
// (a new session if empty).
type CheckRequest struct {
	Session string `json:"session,omitempty"`
	Record  bool   `json:"record"`
}

// CheckReport is what a check of every URL of the database found: the result of its
// job.
type CheckReport struct {
	Checked  int       `json:"checked"`
	Passed   int       `json:"passed"`
	Failed   int       `json:"failed"`
	Verdicts []Verdict `json:"verdicts"`
	Session  string    `json:"session,omitempty"` // where responses were recorded
	// Skipped are the URLs a site's data.txt or robots.txt disallows for the agent,
	// left out because the settings say to respect Disallow.
	Skipped []string `json:"skipped"`
}

// JobRef names the job a request started: {"job": id}.
type JobRef struct {
	Job string `json:"job"`
}

// Job is long work the pages follow and may cancel (checking a URL database, an
// import, an upload): GET /api/jobs/{id}.
type Job struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	State string `json:"state"` // JobRunning, JobDone, JobCancelled or JobFailed
	Done  int    `json:"done"`
	Total int    `json:"total"`
	Error string `json:"error,omitempty"`
	// Result is what a finished job made, in JSON; its type depends on Kind: a
	// CheckReport, the imported session's SessionInfo, a DatabaseInfo, a TeamUpload.
	Result  json.RawMessage `json:"result,omitempty"`
	Started time.Time       `json:"started"`
}

// The states of a Job.
const (
	JobRunning   = "running"
	JobDone      = "done"
	JobCancelled = "cancelled"
	JobFailed    = "failed"
)

// Finished reports whether the job will change no more.
func (j Job) Finished() bool { return j.State != JobRunning && j.State != "" }

// Settings are the user's choices: GET and PUT /api/settings.
type Settings struct {
	// HeaderPolicy is "redact" (the default: Cookie, Authorization,
	// Proxy-Authorization and Set-Cookie values are replaced before anything is
	// written) or "keep".
	HeaderPolicy string `json:"headerPolicy"`
	// PasswordPolicy is "redact" (the default, also when empty: the values of the
	// password fields of a request body, form or JSON, are replaced before anything
	// is written) or "keep". Fields of type password in the page that sent the
	// request count, and those named like a password.
	PasswordPolicy string `json:"passwordPolicy"`
	// BodyLimit cuts response bodies longer than this many bytes (0: no limit); the
	// record then says Truncated: length.
	BodyLimit int64 `json:"bodyLimit"`
	// WARCVersion is the format offered first for download: "0.9" or "1.1".
	WARCVersion string `json:"warcVersion"`
	// CDXDialect is "pywb-2.6.7" (default) or "pywb-2.8".
	CDXDialect string `json:"cdxDialect"`
	// Agent is the name token matched against data.txt User-agent lines.
	Agent string `json:"agent"`
	// RespectDisallow makes automatic crawls (Check all) skip what data.txt disallows.
	RespectDisallow bool `json:"respectDisallow"`
	// DomainRules are Snap!-style rules per registered domain.
	DomainRules map[string]string `json:"domainRules"`
	// TeamEndpoint is the team archive's URL; TeamToken its bearer token, which is
	// write-only: empty in a PUT keeps the stored token, and GET never answers it
	// (TeamTokenSet says whether one is stored).
	TeamEndpoint string `json:"teamEndpoint"`
	TeamToken    string `json:"teamToken,omitempty"`
	TeamTokenSet bool   `json:"teamTokenSet"`
	// ClearTeamToken, in an update, removes the stored token.
	ClearTeamToken bool `json:"clearTeamToken,omitempty"`
	// SignWith is who signs the WACZ downloads: "browser" (the default, also when
	// empty: this browser's key) or "team" (the team archive's key, its
	// /api/sign; TeamEndpoint and TeamToken must be set).
	SignWith string `json:"signWith"`
	// TimestampAuthority is the URL of an RFC 3161 timestamp authority that
	// stamps the browser's signatures; "" for none.
	TimestampAuthority string `json:"timestampAuthority"`
	// AutopilotEveryPage runs autopilot on every page a recorded tab shows, as it
	// is shown.
	AutopilotEveryPage bool `json:"autopilotEveryPage"`
	// ReleaseCompiledCore lets Chromium free the compiled core while the
	// extension's service worker is stopped: each start then compiles it again
	// (about 90 ms more a wake here, docs/install.md). By default an offscreen document
	// holds it (extension/keeper.js; about 65 MB kept for up to 30 minutes after
	// the worker's last start). Firefox keeps its background page running and has
	// no such document.
	ReleaseCompiledCore bool `json:"releaseCompiledCore"`
}

// HasTeam reports whether a team archive is set: its endpoint and its token (the
// settings the core keeps; those the API answers with carry TeamTokenSet instead).
func (s Settings) HasTeam() bool { return s.TeamEndpoint != "" && s.TeamToken != "" }

// TeamUpload is the result of an upload job: the bundle as the team archive keeps it.
type TeamUpload struct {
	Name    string `json:"name"`
	Records int    `json:"records"`
	Size    int64  `json:"size"`
}

// SearchResult is a recorded answer that matches a full-text search: an element
// of GET /api/search's results.
type SearchResult struct {
	Session     string `json:"session"`               // the session's id
	SessionName string `json:"sessionName,omitempty"` // its name
	URL         string `json:"url"`
	TS          string `json:"ts"` // the capture's time, 14 digits, UTC
	Title       string `json:"title"`
	// Snippet is the text around the first match, the matched words between «
	// and »; "…" marks text left out at either end.
	Snippet string `json:"snippet"`
	Status  int    `json:"status"`
	Mime    string `json:"mime"`
	Method  string `json:"method"`
	// Replay is the extension's page that replays the capture.
	Replay string `json:"replay"`
	// Source is where the capture lives: "team" for the team archive (Session is
	// then the bundle that holds it); empty for this browser's sessions.
	Source string `json:"source,omitempty"`
}

// SearchResults answer GET /api/search: the best matches, best first, how many
// match in all, and how long the search took.
type SearchResults struct {
	Results []SearchResult `json:"results"`
	Total   int            `json:"total"`
	// Estimated says Total is an estimate: a search of several words, or of a
	// word with exclusions or filters, reads only the index's blocks that may
	// hold its best results, and estimates how many match in the others.
	Estimated bool    `json:"estimated,omitempty"`
	MS        float64 `json:"ms"`
	// TeamError says why the team archive's results are missing from a search
	// that asked for them (team=1).
	TeamError string `json:"teamError,omitempty"`
	// Indexing says the index had not read every session when the search ran
	// (a large import being indexed): what it had not read is not in the results.
	Indexing bool `json:"indexing,omitempty"`
}
