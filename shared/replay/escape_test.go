package replay

import (
	"html"
	"testing"
)

func TestEscapeHTMLIsHTMLEscapeString(t *testing.T) {
	for _, s := range []string{
		"",
		"GET https://example.org/a?b=1&c=2",
		`<script>alert("x")</script>`,
		"it's <b>&amp;</b> 'quoted' \"twice\"",
		"é ✓ \x00 plain",
	} {
		if got, want := escapeHTML.Replace(s), html.EscapeString(s); got != want {
			t.Errorf("escapeHTML(%q) = %q, want %q", s, got, want)
		}
	}
}
