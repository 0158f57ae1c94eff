package datatxt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
)

// ErrNotText reports an answer that is not a data.txt or robots.txt at all: an HTML
// page (many sites answer every path with a page of their own, status 200), a body of
// another media type, or text with no line of either form. Like ErrNotFound, it means
// the site sets no rules and declares no datasets.
var ErrNotText = errors.New("datatxt: not a data.txt or robots.txt")

// robotsFields are the field names of the robots form that a file holding no record
// may still consist of (Sitemap alone is a common robots.txt).
var robotsFields = map[string]bool{
	"user-agent": true, "allow": true, "disallow": true, "sitemap": true, "crawl-delay": true,
	"host": true, "clean-param": true, "request-rate": true, "visit-time": true, "noindex": true,
}

// ParseAnswer parses the body of a successful answer to a request for a data.txt or a
// robots.txt, served as contentType (the Content-Type field, "" if none): only a text
// answer that is a file of either form counts. It returns ErrNotText, wrapped with
// the reason, for a media type other than text (text/html excepted), YAML or octet
// stream, for a body that is an HTML document whatever its type says, and for text
// that holds no line of the robots form and is not YAML; other errors are Parse's.
func ParseAnswer(contentType string, body io.Reader) (*File, error) {
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			return nil, fmt.Errorf("%w: Content-Type %q cannot be read", ErrNotText, contentType)
		}
		if !textType(mt) {
			return nil, fmt.Errorf("%w: the answer is %s, not text", ErrNotText, mt)
		}
	}
	data, err := io.ReadAll(io.LimitReader(body, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("datatxt: read: %w", err)
	}
	if isHTML(data) {
		return nil, fmt.Errorf("%w: the answer is an HTML page", ErrNotText)
	}
	f, err := Parse(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if f.Format == Robots && len(f.Records) == 0 && !hasRobotsField(f) && hasContent(data) {
		return nil, fmt.Errorf("%w: the text holds no robots field (User-agent, Allow, Disallow, Sitemap) and is not YAML", ErrNotText)
	}
	return f, nil
}

// textType says whether a media type can carry a data.txt or robots.txt.
func textType(mt string) bool {
	switch mt {
	case "text/html", "application/xhtml+xml":
		return false
	case "application/yaml", "application/x-yaml", "application/octet-stream":
		return true
	}
	return strings.HasPrefix(mt, "text/")
}

// isHTML says whether data begins as an HTML document does: the WHATWG sniffing
// rules for HTML, as net/http's DetectContentType applies them (its first 512 bytes,
// white space skipped, one of htmlTags in any case, then a space or '>').
func isHTML(data []byte) bool {
	data = data[:min(len(data), 512)]
	data = bytes.TrimLeft(data, "\t\n\x0c\r ")
	for _, tag := range htmlTags {
		if len(data) > len(tag) && bytes.EqualFold(data[:len(tag)], []byte(tag)) && (data[len(tag)] == ' ' || data[len(tag)] == '>') {
			return true
		}
	}
	return false
}

// htmlTags are the beginnings of an HTML document the sniffing rules know.
var htmlTags = []string{
	"<!DOCTYPE HTML", "<HTML", "<HEAD", "<SCRIPT", "<IFRAME", "<H1", "<DIV", "<FONT", "<TABLE",
	"<A", "<STYLE", "<TITLE", "<B", "<BODY", "<BR", "<P", "<!--",
}

func hasRobotsField(f *File) bool {
	for _, fld := range f.Fields {
		if robotsFields[strings.ToLower(fld.Name)] {
			return true
		}
	}
	return false
}

// hasContent says whether data has a line that is neither blank nor a comment.
func hasContent(data []byte) bool {
	found := false
	lines(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), func(line []byte, _ int) bool {
		line = bytes.TrimSpace(line)
		found = len(line) > 0 && line[0] != '#'
		return !found
	})
	return found
}
