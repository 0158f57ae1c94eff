// Package webrequest turns what Firefox tells an add-on of a recorded tab's requests
// (its webRequest events, the StreamFilter's bytes and the content script's messages)
// into the DevTools events the recorder reads, and says which of the recorder's
// commands Firefox needs nothing for. Firefox has no debugger for add-ons: its
// background page (extension-firefox/background.js) hands each webRequest event's
// details here as they come, in order, and sends on the events a Translator returns.
package webrequest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/recorder"
)

// An Event is a DevTools event of a tab for the recorder: its method, its params as
// JSON, and the body bytes passed beside them, if any.
type Event struct {
	Tab    int
	Method string
	Params json.RawMessage
	Data   []byte
}

// Header is one header of webRequest's header lists. Value is nil for a header
// Firefox gives only as binaryValue.
type Header struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

// RawPart is one part of webRequest's requestBody.raw: its bytes in base64, or none
// for a file part.
type RawPart struct {
	Bytes *string `json:"bytes"`
}

// RequestBody is webRequest's requestBody: the exact bytes (Raw), as Firefox gives them
// for fetch() and XMLHttpRequest, or only the parsed form fields (FormData, in the
// order Firefox gave them), as it gives a form it submits itself.
type RequestBody struct {
	Raw      []RawPart `json:"raw"`
	FormData FormData  `json:"formData"`
}

// FormData is webRequest's requestBody.formData: each name with its values, in the
// order of the object's keys.
type FormData []recorder.FormField

// UnmarshalJSON reads the object {name: [values...]} keeping its keys' order.
func (f *FormData) UnmarshalJSON(b []byte) error {
	*f = nil
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("webrequest: formData is not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("webrequest: formData: %w", err)
		}
		name, _ := t.(string)
		var values []string
		if err := dec.Decode(&values); err != nil {
			return fmt.Errorf("webrequest: formData %q: %w", name, err)
		}
		for _, v := range values {
			*f = append(*f, recorder.FormField{Name: name, Value: v})
		}
	}
	return nil
}

// Details is what a Translator reads of a webRequest event's details. The shim gives
// requestBody.raw's bytes in base64.
type Details struct {
	RequestID       string       `json:"requestId"`
	TabID           int          `json:"tabId"`
	FrameID         int          `json:"frameId"`
	ParentFrameID   int          `json:"parentFrameId"`
	URL             string       `json:"url"`
	Method          string       `json:"method"`
	Type            string       `json:"type"`
	DocumentURL     string       `json:"documentUrl"`
	TimeStamp       float64      `json:"timeStamp"`
	RequestHeaders  []Header     `json:"requestHeaders"`
	ResponseHeaders []Header     `json:"responseHeaders"`
	StatusLine      string       `json:"statusLine"`
	StatusCode      int          `json:"statusCode"`
	IP              string       `json:"ip"`
	FromCache       bool         `json:"fromCache"`
	Error           string       `json:"error"`
	RequestBody     *RequestBody `json:"requestBody"`
	// Stopped is when the response's filter passed on its last byte, or failed (the
	// shim's Date.now()): given with the end of a body (Finished).
	Stopped float64 `json:"stopped"`
}

// resourceTypes maps webRequest's resource types to DevTools'.
var resourceTypes = map[string]string{
	"main_frame": "Document", "sub_frame": "Document", "xmlhttprequest": "XHR", "script": "Script",
	"stylesheet": "Stylesheet", "image": "Image", "imageset": "Image", "font": "Font", "media": "Media",
	"websocket": "WebSocket", "ping": "Ping", "beacon": "Ping", "csp_report": "CSPViolationReport",
	"object": "Other", "xslt": "Other", "xml_dtd": "Other", "web_manifest": "Manifest", "speculative": "Other", "other": "Other",
}

// resourceType is the DevTools resource type of a webRequest type.
func resourceType(t string) string {
	if r, ok := resourceTypes[t]; ok {
		return r
	}
	return "Other"
}

// headerMap gives webRequest's header list as DevTools does: one value per name, the
// values of a repeated name joined by newlines.
func headerMap(list []Header) map[string]string {
	m := map[string]string{}
	for _, h := range list {
		if h.Value == nil {
			continue
		}
		if v, ok := m[h.Name]; ok {
			m[h.Name] = v + "\n" + *h.Value
		} else {
			m[h.Name] = *h.Value
		}
	}
	return m
}

// postEntry is one of DevTools' postDataEntries.
type postEntry struct {
	Bytes *string `json:"bytes,omitempty"`
}

// post is a request body as the recorder reads it: the exact bytes' entries, or, for
// a body Firefox gave only as form fields, no entries and the fields (which the
// recorder rebuilds the body from, and marks).
type post struct {
	entries []postEntry
	fields  *[]recorder.FormField
}

// requestBody is the post of a webRequest requestBody, or nil for none.
func requestBody(b *RequestBody) *post {
	if b == nil {
		return nil
	}
	if b.Raw == nil {
		fields := []recorder.FormField(b.FormData)
		if fields == nil {
			fields = []recorder.FormField{}
		}
		return &post{entries: []postEntry{}, fields: &fields}
	}
	p := &post{entries: make([]postEntry, len(b.Raw))}
	for i, part := range b.Raw {
		p.entries[i].Bytes = part.Bytes
	}
	return p
}

// protocols maps the status line's version to DevTools' protocol names where they
// differ from the version in lower case.
var protocols = map[string]string{"HTTP/2": "h2", "HTTP/2.0": "h2", "HTTP/3": "h3"}

// newResponse is the DevTools response object of a webRequest response event's
// details. Firefox says only that its HTTP cache gave the page its copy, not whether
// it asked the server first (a 304 on the wire): the recorder's note says so.
func newResponse(d *Details) *recorder.WireResponse {
	// "HTTP/1.1 200 OK": the version, the code, the reason (which may hold spaces).
	parts := strings.Split(d.StatusLine, " ")
	version, reason := parts[0], ""
	if len(parts) > 2 {
		reason = strings.Join(parts[2:], " ")
	}
	protocol, ok := protocols[version]
	if !ok {
		protocol = strings.ToLower(version)
	}
	return &recorder.WireResponse{
		URL: d.URL, Status: d.StatusCode, StatusText: reason, Headers: headerMap(d.ResponseHeaders),
		Protocol: protocol, RemoteIPAddress: d.IP, WebkeepFromHTTPCache: d.FromCache,
	}
}

// frameKey names a frame of a tab.
type frameKey struct{ tab, frame int }

// change is a moment the document a frame shows changed, or began to: a navigation
// began or its response started (with its request's id), or the content script saw
// the page begin to be left (no id).
type change struct {
	requestID string
	at        float64
}

// maxChanges is how many of a frame's last changes are kept.
const maxChanges = 16

// LeaveMargin is how long after a response's filter stopped (in ms) a change of its
// page's document still counts as the page being left while the body came: Firefox
// stops a page's loads as a navigation begins, after the page's beforeunload, and
// before the navigation's own request (seen 15-22 ms before its timeStamp on
// DokuWiki).
const LeaveMargin = 200

// LeaveCheck is how long after a body's filter stopped the background page tells the
// core that the body ended ("finished", with when it stopped): the events that show
// its page being left (a navigation's, the content script's) come by other roads and
// can come after the stop; by then those of the LeaveMargin after it have come.
const LeaveCheck = 500 * time.Millisecond

// request is one recorded request: its current hop, and the redirect response the
// next hop's requestWillBeSent carries.
type request struct {
	tab, frame, parentFrame int
	began                   float64 // the hop's webRequest timeStamp
	url, method, typ        string
	documentURL             string
	wallTime                float64
	headers                 map[string]string
	post                    *post
	sent                    bool
	redirect                *recorder.WireResponse
}

// A Translator keeps what it needs of the recorded tabs' requests and frames between
// their events. Its methods are called in the order the browser's events came; it is
// not safe for concurrent use.
type Translator struct {
	requests  map[string]*request
	documents map[frameKey]string // the request id that loaded each frame's document (DevTools' loaderId)
	changes   map[frameKey][]change
	// heldFromStart holds the tabs attached before any request of theirs passed
	// (Attached): until the recorder asks for their address (NavigationHistory).
	heldFromStart map[int]bool
}

// NewTranslator returns a Translator that knows no request yet.
func NewTranslator() *Translator {
	return &Translator{requests: map[string]*request{}, documents: map[frameKey]string{}, changes: map[frameKey][]change{}, heldFromStart: map[int]bool{}}
}

// Handle translates one event of kind (a webRequest event's name: beforeRequest,
// sendHeaders, beforeRedirect, responseStarted, completed, errorOccurred; or finished,
// a body's filter having passed on its last byte after completed; or loaded, the load
// event of the top frame of tab tabId, which the content script tells) from its
// details as JSON.
func (t *Translator) Handle(kind string, details []byte) ([]Event, error) {
	var d Details
	if err := json.Unmarshal(details, &d); err != nil {
		return nil, fmt.Errorf("webrequest: %s: %w", kind, err)
	}
	var out events
	switch kind {
	case "beforeRequest":
		t.beforeRequest(&d)
	case "sendHeaders":
		if r := t.requests[d.RequestID]; r != nil {
			r.headers = headerMap(d.RequestHeaders)
			t.sent(&out, d.RequestID, r)
		}
	case "beforeRedirect":
		if r := t.requests[d.RequestID]; r != nil {
			t.sent(&out, d.RequestID, r)
			// The next hop's requestWillBeSent carries this response, as in DevTools.
			r.redirect = newResponse(&d)
		}
	case "responseStarted":
		t.responseStarted(&out, &d)
	case "completed":
		if r := t.requests[d.RequestID]; r != nil {
			t.sent(&out, d.RequestID, r)
		}
	case "finished":
		if r := t.requests[d.RequestID]; r != nil {
			out.add(r.tab, "Network.loadingFinished", loadingFinished{RequestID: d.RequestID, EndsEarlyWhenLeft: t.leaving(d.RequestID, r, d.Stopped)})
			delete(t.requests, d.RequestID)
		}
	case "errorOccurred":
		if r := t.requests[d.RequestID]; r != nil {
			t.sent(&out, d.RequestID, r)
			out.add(r.tab, "Network.loadingFailed", loadingFailed{RequestID: d.RequestID, ErrorText: d.Error, Canceled: d.Error == "NS_BINDING_ABORTED"})
			delete(t.requests, d.RequestID)
		}
	case "loaded":
		out.add(d.TabID, "Page.loadEventFired", struct{}{})
	default:
		return nil, fmt.Errorf("webrequest: unknown event %q", kind)
	}
	return out.list, out.err
}

// events collects the events of one call, and the first error marshalling them.
type events struct {
	list []Event
	err  error
}

func (e *events) add(tab int, method string, params any) {
	b, err := json.Marshal(params)
	if err != nil {
		e.err = fmt.Errorf("webrequest: %s of tab %d: %w", method, tab, err)
		return
	}
	e.list = append(e.list, Event{Tab: tab, Method: method, Params: b})
}

// beforeRequest begins a request's hop (a redirect's next hop keeps its id).
func (t *Translator) beforeRequest(d *Details) {
	r := t.requests[d.RequestID]
	if r == nil {
		r = &request{}
		t.requests[d.RequestID] = r
	}
	typ := resourceType(d.Type)
	if typ == "Document" {
		t.changed(d.TabID, d.FrameID, d.RequestID, d.TimeStamp)
	}
	documentURL := d.DocumentURL
	if documentURL == "" {
		documentURL = d.URL
	}
	*r = request{
		tab: d.TabID, frame: d.FrameID, parentFrame: d.ParentFrameID, began: d.TimeStamp,
		url: d.URL, method: d.Method, typ: typ, documentURL: documentURL, wallTime: d.TimeStamp / 1000,
		post: requestBody(d.RequestBody), redirect: r.redirect,
	}
}

// changed notes that the document of a tab's frame changed, or began to, at at.
func (t *Translator) changed(tab, frame int, requestID string, at float64) {
	k := frameKey{tab, frame}
	list := append(t.changes[k], change{requestID, at})
	if len(list) > maxChanges {
		list = list[1:]
	}
	t.changes[k] = list
}

// Leaving notes that the content script of a tab's frame saw its page begin to be
// left (beforeunload) at at (ms since the epoch).
func (t *Translator) Leaving(tab, frame int, at float64) {
	t.changed(tab, frame, "", at)
}

// requestWillBeSent is the params of Network.requestWillBeSent.
type requestWillBeSent struct {
	RequestID string `json:"requestId"`
	Request   struct {
		URL             string                `json:"url"`
		Method          string                `json:"method"`
		Headers         map[string]string     `json:"headers"`
		HasPostData     bool                  `json:"hasPostData"`
		PostDataEntries []postEntry           `json:"postDataEntries,omitempty"`
		FormFields      *[]recorder.FormField `json:"webkeepFormFields,omitempty"`
	} `json:"request"`
	WallTime         float64                `json:"wallTime"`
	Type             string                 `json:"type"`
	DocumentURL      string                 `json:"documentURL"`
	FrameID          string                 `json:"frameId"`
	LoaderID         string                 `json:"loaderId"`
	RedirectResponse *recorder.WireResponse `json:"redirectResponse,omitempty"`
}

// sent adds Network.requestWillBeSent for a request's hop, once.
func (t *Translator) sent(out *events, id string, r *request) {
	if r.sent {
		return
	}
	r.sent = true
	var p requestWillBeSent
	p.RequestID = id
	p.Request.URL, p.Request.Method, p.Request.Headers = r.url, r.method, r.headers
	if p.Request.Headers == nil {
		p.Request.Headers = map[string]string{}
	}
	if r.post != nil {
		p.Request.HasPostData, p.Request.PostDataEntries, p.Request.FormFields = true, r.post.entries, r.post.fields
	}
	p.WallTime, p.Type, p.DocumentURL, p.FrameID = r.wallTime, r.typ, r.documentURL, strconv.Itoa(r.frame)
	// A document's request is its own loader; another request belongs to the document
	// its frame shows.
	if r.typ == "Document" {
		p.LoaderID = id
	} else {
		p.LoaderID = t.documents[frameKey{r.tab, r.frame}]
	}
	p.RedirectResponse, r.redirect = r.redirect, nil
	out.add(r.tab, "Network.requestWillBeSent", p)
}

// responseReceived is the params of Network.responseReceived.
type responseReceived struct {
	RequestID    string                 `json:"requestId"`
	Response     *recorder.WireResponse `json:"response"`
	HasExtraInfo bool                   `json:"hasExtraInfo"`
}

// frameNavigated is the params of Page.frameNavigated.
type frameNavigated struct {
	Frame struct {
		ID       string `json:"id"`
		LoaderID string `json:"loaderId"`
		ParentID string `json:"parentId,omitempty"`
		URL      string `json:"url"`
	} `json:"frame"`
}

// responseStarted adds a hop's response, and for a document the frame's navigation.
func (t *Translator) responseStarted(out *events, d *Details) {
	r := t.requests[d.RequestID]
	if r == nil {
		return
	}
	t.sent(out, d.RequestID, r)
	out.add(r.tab, "Network.responseReceived", responseReceived{RequestID: d.RequestID, Response: newResponse(d)})
	if r.typ != "Document" {
		return
	}
	t.changed(r.tab, r.frame, d.RequestID, d.TimeStamp)
	t.documents[frameKey{r.tab, r.frame}] = d.RequestID
	var p frameNavigated
	p.Frame.ID, p.Frame.LoaderID, p.Frame.URL = strconv.Itoa(r.frame), d.RequestID, r.url
	if r.frame != 0 {
		p.Frame.ParentID = strconv.Itoa(r.parentFrame)
	}
	out.add(r.tab, "Page.frameNavigated", p)
}

// loadingFinished is the params of Network.loadingFinished.
type loadingFinished struct {
	RequestID string `json:"requestId"`
	// EndsEarlyWhenLeft: see Translator.leaving.
	EndsEarlyWhenLeft bool `json:"webkeepEndsEarlyWhenLeft"`
}

// loadingFailed is the params of Network.loadingFailed.
type loadingFailed struct {
	RequestID string `json:"requestId"`
	ErrorText string `json:"errorText"`
	Canceled  bool   `json:"canceled"`
}

// leaving says whether the document of request id's frame, or of its tab, changed
// between the hop's start and its filter's stop: a navigation began, or its response
// started (which is how a request the page being left made after the navigation began
// is known). Its page may then have been left as the filter passed its body on, and
// Firefox stops a filter so after part of the body, or none, as if the body had ended
// (its state "finishedtransferringdata", no error): the recorder cannot know the body
// whole. A change up to LeaveMargin after the stop counts too; the shim asks a while
// after the stop, for the stop's event can come before the others, by other roads. A
// body that ended whole just before a navigation is marked all the same.
func (t *Translator) leaving(id string, r *request, stopped float64) bool {
	for _, frame := range []int{r.frame, 0} {
		for _, c := range t.changes[frameKey{r.tab, frame}] {
			if c.requestID != id && c.at > r.began && c.at <= stopped+LeaveMargin {
				return true
			}
		}
	}
	return false
}

// Forget drops everything kept of a tab's requests and frames: it is no longer
// recorded.
func (t *Translator) Forget(tab int) {
	for id, r := range t.requests {
		if r.tab == tab {
			delete(t.requests, id)
		}
	}
	for k := range t.documents {
		if k.tab == tab {
			delete(t.documents, k)
		}
	}
	for k := range t.changes {
		if k.tab == tab {
			delete(t.changes, k)
		}
	}
	delete(t.heldFromStart, tab)
}

// BodyData is the Network.dataReceived event of a tab's piece of length bytes of a streamed
// body: data is the bytes, passed beside the event, unless the shim stored them itself
// (routed: the recorder routed the body), when the event only shows that the body is
// still arriving.
func BodyData(tab int, requestID string, length int, routed bool, data []byte) Event {
	type params struct {
		RequestID         string  `json:"requestId"`
		DataLength        int     `json:"dataLength"`
		EncodedDataLength int     `json:"encodedDataLength"`
		Data              *string `json:"data,omitempty"`
	}
	p := params{RequestID: requestID, DataLength: length, EncodedDataLength: length}
	if routed {
		p.Data, data = new(string), nil
	}
	b, _ := json.Marshal(p) // a struct of strings and ints always marshals
	return Event{Tab: tab, Method: "Network.dataReceived", Params: b, Data: data}
}

// Upload is the Runtime.bindingCalled event of a message of a tab's content script that
// copies the files a page sends (as Chromium's recorder gets it from its script in
// the page, shared/recorder/upload.js): payload is the message's JSON, its data, if
// any, taken out and passed beside the event as bytes.
func Upload(tab int, payload []byte, data []byte) Event {
	b, _ := json.Marshal(struct {
		Name               string `json:"name"`
		Payload            string `json:"payload"`
		ExecutionContextID int    `json:"executionContextId"`
	}{"__webkeepUpload", string(payload), 0}) // strings and an int always marshal
	return Event{Tab: tab, Method: "Runtime.bindingCalled", Params: b, Data: data}
}
