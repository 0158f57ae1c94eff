package search

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// ErrNotText is returned (wrapped with the content type) by Extract for a content
// type it does not read text from: images, scripts, style sheets, binaries.
var ErrNotText = errors.New("search: not a text content type")

// A Doc is the searchable text of one answer: what Extract reads from its body.
type Doc struct {
	// Title is the page's title: the first <title> of an HTML page, the first
	// title element of an XML document (RSS, Atom); empty for other types.
	Title string
	// Text is the visible text, valid UTF-8, runs of white space collapsed to
	// one space, a line break where a block element separates words.
	Text string
	// Truncated says that the body held more text than the limit: Text is its
	// first limit bytes, cut at a character boundary.
	Truncated bool
}

// Kind is how Extract reads a content type.
type Kind int

// The kinds of content Extract reads.
const (
	KindNone  Kind = iota // not text: Extract returns ErrNotText
	KindHTML              // text/html, application/xhtml+xml
	KindPlain             // text/plain
	KindJSON              // application/json, text/json, application/*+json
	KindXML               // application/xml, text/xml, application/*+xml
)

// KindOf returns how Extract reads contentType (a Content-Type header value,
// parameters allowed), so that a recorder can skip an answer before reading it.
func KindOf(contentType string) Kind {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch mt {
	case "text/html", "application/xhtml+xml":
		return KindHTML
	case "text/plain":
		return KindPlain
	case "application/json", "text/json", "application/ld+json":
		return KindJSON
	case "application/xml", "text/xml":
		return KindXML
	}
	switch {
	case strings.HasSuffix(mt, "+json"):
		return KindJSON
	case strings.HasSuffix(mt, "+xml") && mt != "image/svg+xml":
		return KindXML
	}
	return KindNone
}

// Extract reads the searchable text of an answer of type contentType from body:
// for HTML the title and the visible text (not scripts, styles, templates or the
// head), for text/plain the text, for JSON its string values, for XML its
// character data. The charset is the content type's, else for HTML the one its
// byte order mark or <meta> names, else UTF-8; bytes that are not valid in it
// become U+FFFD.
//
// Extract stops reading once it holds limit bytes of text (limit <= 0: no limit)
// and sets Doc.Truncated. On a read error, or JSON it cannot parse, it returns
// the text read so far with the error.
func Extract(contentType string, body io.Reader, limit int64) (Doc, error) {
	kind := KindOf(contentType)
	if kind == KindNone {
		return Doc{}, fmt.Errorf("%w: %q", ErrNotText, contentType)
	}
	if limit <= 0 {
		limit = 1<<63 - 1
	}
	br := bufio.NewReaderSize(body, 32<<10)
	enc, err := detectCharset(br, contentType, kind)
	if err != nil {
		return Doc{}, fmt.Errorf("search: extract: %w", err)
	}
	var r io.Reader = br
	if enc != nil {
		r = transform.NewReader(br, enc.NewDecoder())
	}
	t := &textBuilder{limit: limit}
	switch kind {
	case KindHTML:
		err = extractHTML(r, t)
	case KindPlain:
		err = extractPlain(r, t)
	case KindJSON:
		err = extractJSON(r, t)
	case KindXML:
		err = extractXML(r, t, enc != nil)
	}
	if errors.Is(err, errFull) {
		err = nil
	}
	d := Doc{Title: t.title, Text: t.b.String(), Truncated: t.full}
	if err != nil {
		return d, fmt.Errorf("search: extract %s: %w", kindName[kind], err)
	}
	return d, nil
}

var kindName = [...]string{KindNone: "none", KindHTML: "HTML", KindPlain: "text", KindJSON: "JSON", KindXML: "XML"}

// detectCharset returns the decoder's encoding for the body, nil for UTF-8 (the
// text is then made valid as it is written).
func detectCharset(br *bufio.Reader, contentType string, kind Kind) (encoding.Encoding, error) {
	label := ""
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		label = params["charset"]
	}
	var e encoding.Encoding
	switch {
	case label != "":
		e, _ = charset.Lookup(label)
	case kind == KindHTML:
		head, err := br.Peek(1024)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
		var name string
		e, name, _ = charset.DetermineEncoding(head, "text/html")
		if name == "windows-1252" && !bytes.Contains(bytes.ToLower(head), []byte("charset")) {
			// The tokenizer's guess when nothing is declared: UTF-8 is ours.
			e = nil
		}
	default:
		head, _ := br.Peek(3)
		e, _ = bomEncoding(head)
	}
	if e == nil || e == encoding.Nop || e == unicode.UTF8 || e == unicode.UTF8BOM {
		// A UTF-8 BOM is dropped by the text builder as white space would be.
		return nil, nil
	}
	return e, nil
}

// bomEncoding returns the UTF-16 encoding a byte order mark names.
func bomEncoding(head []byte) (encoding.Encoding, bool) {
	switch {
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), true
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), true
	}
	return nil, false
}

// errFull stops the extractors once the text has reached its limit.
var errFull = errors.New("text limit reached")

// textBuilder collects text, collapsing white space and bounding its length.
type textBuilder struct {
	b     strings.Builder
	title string
	limit int64
	full  bool
	// sep is the separator owed before the next word: 0, ' ' or '\n'.
	sep byte
}

// brk asks for a line break before the next word.
func (t *textBuilder) brk() {
	if t.b.Len() > 0 {
		t.sep = '\n'
	}
}

// space asks for a space before the next word, unless a line break is owed.
func (t *textBuilder) space() {
	if t.b.Len() > 0 && t.sep == 0 {
		t.sep = ' '
	}
}

// write appends text, white space collapsed. It returns errFull at the limit.
func (t *textBuilder) write(p []byte) error {
	if t.full {
		return errFull
	}
	if !utf8.Valid(p) {
		p = bytes.ToValidUTF8(p, []byte("\uFFFD"))
	}
	for len(p) > 0 {
		// A run of white space.
		i := 0
		for i < len(p) && isSpace(p[i]) {
			i++
		}
		if i > 0 {
			t.space()
			p = p[i:]
			continue
		}
		if len(p) >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf { // BOM
			p = p[3:]
			continue
		}
		// A run of other bytes.
		for i < len(p) && !isSpace(p[i]) {
			i++
		}
		run := p[:i]
		need := int64(len(run))
		if t.sep != 0 {
			need++
		}
		if left := t.limit - int64(t.b.Len()); need > left {
			if t.sep != 0 && left > 0 {
				t.b.WriteByte(t.sep)
				left--
			}
			cut := int(left)
			for cut > 0 && !utf8.RuneStart(run[cut]) {
				cut--
			}
			t.b.Write(run[:cut])
			t.full = true
			return errFull
		}
		if t.sep != 0 {
			t.b.WriteByte(t.sep)
			t.sep = 0
		}
		t.b.Write(run)
		p = p[i:]
	}
	return nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// blockElements are the HTML elements that separate the words before and after
// them (and line breaks).
var blockElements = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "br": true,
	"caption": true, "dd": true, "details": true, "dialog": true, "div": true, "dl": true,
	"dt": true, "fieldset": true, "figcaption": true, "figure": true, "footer": true,
	"form": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"header": true, "hgroup": true, "hr": true, "li": true, "main": true, "nav": true,
	"ol": true, "option": true, "p": true, "pre": true, "section": true, "summary": true,
	"table": true, "tbody": true, "td": true, "tfoot": true, "th": true, "thead": true,
	"tr": true, "ul": true, "body": true, "html": true, "button": true, "label": true,
	"select": true, "textarea": true, "legend": true, "menu": true, "img": true,
	"input": true, "video": true, "audio": true, "canvas": true, "iframe": true,
}

// headElements may appear in <head>; any other start tag ends it.
var headElements = map[string]bool{
	"title": true, "meta": true, "link": true, "style": true, "script": true,
	"noscript": true, "base": true, "template": true,
}

// extractHTML writes the title and visible text of an HTML page.
func extractHTML(r io.Reader, t *textBuilder) error {
	z := html.NewTokenizer(r)
	var (
		inHead    bool
		inTitle   bool
		gotTitle  bool
		skipRaw   bool   // inside script, style, noscript, iframe, noembed, noframes
		skipName  string // inside <template> (nested ones counted)
		skipDepth int
		title     []byte
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return err
			}
			if inTitle && !gotTitle {
				t.title = collapse(title)
			}
			return nil
		case html.TextToken:
			if skipRaw || skipDepth > 0 {
				continue
			}
			if inTitle {
				if !gotTitle {
					title = append(title, z.Text()...)
				}
				continue
			}
			text := z.Text()
			if inHead {
				if len(bytes.TrimLeft(text, " \t\r\n\f")) == 0 {
					continue
				}
				inHead = false // text ends the head
			}
			if err := t.write(text); err != nil {
				return err
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			if skipDepth > 0 {
				if string(name) == skipName {
					if tt == html.StartTagToken {
						skipDepth++
					} else if tt == html.EndTagToken {
						skipDepth--
					}
				}
				continue
			}
			if tt == html.EndTagToken {
				switch string(name) {
				case "head":
					inHead = false
				case "title":
					if inTitle && !gotTitle {
						t.title = collapse(title)
						gotTitle = true
					}
					inTitle = false
				case "script", "style", "noscript", "iframe", "noembed", "noframes":
					skipRaw = false
				default:
					if blockElements[string(name)] {
						t.brk()
					}
				}
				continue
			}
			switch string(name) {
			case "head":
				inHead = true
				continue
			case "body":
				inHead = false
			case "title":
				inTitle = tt == html.StartTagToken
				continue
			case "script", "style", "noscript", "iframe", "noembed", "noframes":
				// The tokenizer reads their content as raw text.
				skipRaw = tt == html.StartTagToken
				continue
			case "template":
				if tt == html.StartTagToken {
					skipName, skipDepth = "template", 1
				}
				continue
			}
			if inHead && !headElements[string(name)] {
				inHead = false
			}
			if blockElements[string(name)] {
				t.brk()
			}
		}
	}
}

// collapse returns text with its white space collapsed and trimmed.
func collapse(text []byte) string {
	if !utf8.Valid(text) {
		text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
	}
	return strings.Join(strings.Fields(string(text)), " ")
}

// extractPlain writes plain text.
func extractPlain(r io.Reader, t *textBuilder) error {
	buf := make([]byte, 32<<10)
	var carry int // bytes of a split UTF-8 sequence kept from the last read
	for {
		n, err := r.Read(buf[carry:])
		n += carry
		carry = 0
		if n > 0 {
			// Keep an incomplete UTF-8 sequence at the end for the next read.
			end := n
			if err == nil {
				for i := n - 1; i >= 0 && i >= n-utf8.UTFMax; i-- {
					if utf8.RuneStart(buf[i]) {
						if !utf8.FullRune(buf[i:n]) {
							end = i
						}
						break
					}
				}
			}
			if werr := t.write(buf[:end]); werr != nil {
				return werr
			}
			carry = copy(buf, buf[end:n])
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// extractJSON writes the string values of a JSON text (or of a sequence of
// them, as in JSON Lines), each its own line; object keys are left out.
func extractJSON(r io.Reader, t *textBuilder) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	// inObject[i] says the container at depth i is an object; expectKey says the
	// next string in it is a key.
	var inObject []bool
	expectKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				inObject = append(inObject, true)
				expectKey = true
			case '[':
				inObject = append(inObject, false)
				expectKey = false
			case '}', ']':
				inObject = inObject[:len(inObject)-1]
				expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
			}
		case string:
			if expectKey {
				expectKey = false
				continue
			}
			t.brk()
			if err := t.write([]byte(v)); err != nil {
				return err
			}
			expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
		default:
			if !expectKey {
				expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
			}
		}
	}
}

// extractXML writes the character data of an XML document, and takes the first
// element named title as its title. decoded says the reader already yields
// UTF-8, whatever the XML declaration says.
func extractXML(r io.Reader, t *textBuilder, decoded bool) error {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		if decoded {
			return in, nil
		}
		e, _ := charset.Lookup(label)
		if e == nil {
			return nil, fmt.Errorf("unknown charset %q", label)
		}
		return transform.NewReader(in, e.NewDecoder()), nil
	}
	inTitle, gotTitle := false, false
	var title []byte
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case xml.StartElement:
			if v.Name.Local == "title" && !gotTitle {
				inTitle = true
			}
			t.brk()
		case xml.EndElement:
			if inTitle && v.Name.Local == "title" {
				t.title = collapse(title)
				inTitle, gotTitle = false, true
			}
			t.brk()
		case xml.CharData:
			if inTitle {
				title = append(title, v...)
			}
			if err := t.write(v); err != nil {
				return err
			}
		}
	}
}
