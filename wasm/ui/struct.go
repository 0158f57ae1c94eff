package main

import (
	"encoding/json"
	"time"
)

// The core's API answers, as docs/api.md documents them. The pages define their own
// view of them rather than importing shared/capture, which would bring net/http and the
// WARC writer into ui.wasm.

// SessionInfo describes a recording session.
type SessionInfo struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Created   time.Time     `json:"created"`
	Updated   time.Time     `json:"updated"`
	Records   int           `json:"records"`
	Exchanges int           `json:"exchanges"`
	NonGET    int           `json:"nonGet"`
	Pages     int           `json:"pages"`
	Failures  int           `json:"failures"`
	Bytes     int64         `json:"bytes"`
	Notes     []string      `json:"notes"`
	Verdicts  VerdictCounts `json:"verdicts"`
	// Incomplete counts exchanges archived with a body marked Truncated; Reasons
	// counts those and the ones without a response by reason, in plain words.
	Incomplete int            `json:"incomplete"`
	Reasons    map[string]int `json:"reasons"`
	// LoginPosts counts the requests whose body holds a password field.
	LoginPosts int `json:"loginPosts"`
}

// VerdictCounts sums up the URL database's verdicts on a session's responses.
type VerdictCounts struct {
	Pass      int `json:"pass"`
	Fail      int `json:"fail"`
	Unchecked int `json:"unchecked"`
}

// Status is the recording state: GET /api/status.
type Status struct {
	Recording bool         `json:"recording"`
	Tabs      []int        `json:"tabs"`
	Session   *SessionInfo `json:"session"`
}

// Record is one CDXJ line of a session: GET /api/sessions/{id}/records.
type Record struct {
	URLKey    string       `json:"urlkey"`
	Timestamp string       `json:"timestamp"`
	Fields    RecordFields `json:"fields"`
	Verdict   *Verdict     `json:"verdict"`
	// RevisitStatus is a revisit's HTTP status, which its CDXJ line does not carry.
	RevisitStatus int `json:"revisitStatus"`

	search string // what a search for words looks in, lowercased; made by Filter.Match
}

// RecordFields are the JSON fields of a CDXJ line; the cdx package writes every value
// as a string, numbers included, as pywb does.
type RecordFields struct {
	URL         string `json:"url"`
	Mime        string `json:"mime"`
	Status      string `json:"status"`
	Digest      string `json:"digest"`
	Length      string `json:"length"`
	Offset      string `json:"offset"`
	Filename    string `json:"filename"`
	Method      string `json:"method"`
	RequestBody string `json:"requestBody"`
}

// RecordDetail is one WARC record: GET /api/sessions/{id}/record?offset=N.
type RecordDetail struct {
	Offset int64     `json:"offset"`
	Type   string    `json:"type"`
	URI    string    `json:"uri"`
	Date   time.Time `json:"date"`
	ID     string    `json:"id"`
	// Fields are the record's WARC named fields in order; a name may repeat.
	Fields []Field `json:"fields"`
	// HTTP is the start line and headers of the HTTP message the record holds.
	HTTP        string        `json:"http"`
	BlockLength int64         `json:"blockLength"`
	Request     *RecordDetail `json:"request"`
}

// Field is a WARC named field (shared/warc.Field).
type Field struct {
	Name  string `json:"Name"`
	Value string `json:"Value"`
}

// Verdict is the URL database's judgement of one URL (shared/urldb.Verdict).
type Verdict struct {
	URL      string `json:"url"`
	OK       bool   `json:"ok"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Problem  string `json:"problem"`
	Note     string `json:"note"`
	Domain   string `json:"domain"`
	Path     string `json:"path"`
	Status   int    `json:"status"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
}

// Page is a page visited in a session: GET /api/sessions/{id}/pages.
type Page struct {
	ID    string    `json:"id"`
	URL   string    `json:"url"`
	Title string    `json:"title"`
	TS    time.Time `json:"ts"`
	TabID int       `json:"tabId"`
}

// Report is a session's check report: GET /api/sessions/{id}/report.
type Report struct {
	Session  SessionInfo `json:"session"`
	Verdicts []Verdict   `json:"verdicts"`
	Sites    []Site      `json:"sites"`
}

// Site holds the data.txt findings of one recorded origin.
type Site struct {
	Origin  string   `json:"origin"`
	DataTxt SiteFile `json:"datatxt"`
	Robots  SiteFile `json:"robots"`
	// Agent is the name matched against the files' User-agent lines, and Allowed
	// whether they let it crawl Page, the page that led to the site.
	Agent   string `json:"agent"`
	Allowed bool   `json:"allowed"`
	Page    string `json:"page"`
}

// SiteFile is what an origin's /data.txt or /robots.txt said.
type SiteFile struct {
	Found   bool   `json:"found"`
	Status  int    `json:"status"`
	Format  string `json:"format"`
	Records int    `json:"records"`
	// Datasets are the entries of a YAML data.txt (shared/datatxt.Dataset).
	Datasets []map[string]any `json:"datasets"`
	Error    string           `json:"error"`
	// NotFile says why a successful answer was not the file (the site's HTML page).
	NotFile string `json:"notFile"`
}

// URLDB describes the loaded URL database: GET /api/urldb.
type URLDB struct {
	Loaded   bool     `json:"loaded"`
	Domains  []Domain `json:"domains"`
	Records  int      `json:"records"`
	Problems []string `json:"problems"`
	// Origins are the match patterns of the sites a check fetches.
	Origins []string `json:"origins"`
}

// Domain is one file of the URL database.
type Domain struct {
	Name    string `json:"name"`
	Records int    `json:"records"`
}

// AddRecord asks for a recorded response to become a URL database record:
// POST /api/urldb/records.
type AddRecord struct {
	Session    string   `json:"session"`
	Offset     int64    `json:"offset"`
	Categories []string `json:"categories"`
	Static     bool     `json:"static"`
}

// AddedRecord is the answer to AddRecord.
type AddedRecord struct {
	Domain string         `json:"domain"`
	Path   string         `json:"path"`
	Record map[string]any `json:"record"`
}

// CheckRequest starts a check of every URL of the database: POST /api/urldb/check.
type CheckRequest struct {
	Session string `json:"session,omitempty"`
	Record  bool   `json:"record"`
}

// JobRef names a job started by a request.
type JobRef struct {
	Job string `json:"job"`
}

// Job is long work in the core: GET /api/jobs/{id}.
type Job struct {
	ID     string          `json:"id"`
	Kind   string          `json:"kind"`
	State  string          `json:"state"`
	Done   int64           `json:"done"`
	Total  int64           `json:"total"`
	Error  string          `json:"error"`
	Result json.RawMessage `json:"result"`
}

// Job states.
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
	HeaderPolicy    string            `json:"headerPolicy"`
	PasswordPolicy  string            `json:"passwordPolicy"`
	BodyLimit       int64             `json:"bodyLimit"`
	WARCVersion     string            `json:"warcVersion"`
	CDXDialect      string            `json:"cdxDialect"`
	Agent           string            `json:"agent"`
	RespectDisallow bool              `json:"respectDisallow"`
	DomainRules     map[string]string `json:"domainRules"`
	TeamEndpoint    string            `json:"teamEndpoint"`
	// TeamToken is write-only: empty in a PUT keeps the stored token, and GET never
	// answers it (TeamTokenSet says whether one is stored).
	TeamToken      string `json:"teamToken,omitempty"`
	TeamTokenSet   bool   `json:"teamTokenSet"`
	ClearTeamToken bool   `json:"clearTeamToken,omitempty"`
}

// CheckResult is what a finished check of the URL database found: the result of
// its job.
type CheckResult struct {
	Checked  int       `json:"checked"`
	Passed   int       `json:"passed"`
	Failed   int       `json:"failed"`
	Verdicts []Verdict `json:"verdicts"`
	// Session is the session the responses were recorded into, if they were.
	Session string `json:"session"`
}

// TeamUpload is the result of an upload job: the bundle as the team archive keeps it.
type TeamUpload struct {
	Name    string `json:"name"`
	Records int    `json:"records"`
	Size    int64  `json:"size"`
}
