package autopilot

import "testing"

func TestSafe(t *testing.T) {
	const page = "https://example.org/feed?x=1#top"
	for _, tc := range []struct {
		name string
		b    Button
		ok   bool
		why  string
	}{
		{"load more button", Button{Tag: "button", Type: "button", Text: "Load more"}, true, ""},
		{"show more, any case and punctuation", Button{Tag: "button", Text: "  SHOW   MORE…"}, true, ""},
		{"label only", Button{Tag: "div", Label: "Load more"}, true, ""},
		{"german", Button{Tag: "button", Text: "Mehr laden"}, true, ""},
		{"french", Button{Tag: "button", Text: "Voir plus"}, true, ""},
		{"spanish", Button{Tag: "button", Text: "Cargar más"}, true, ""},
		{"russian", Button{Tag: "button", Text: "Показать ещё"}, true, ""},
		{"japanese", Button{Tag: "button", Text: "もっと見る"}, true, ""},
		{"chinese", Button{Tag: "button", Text: "加载更多"}, true, ""},
		{"fragment link", Button{Tag: "a", Href: "#more", Text: "More"}, true, ""},
		{"same page link", Button{Tag: "a", Href: "/feed?x=1", Text: "More"}, true, ""},
		{"javascript link", Button{Tag: "a", Href: "javascript:void(0)", Text: "Load more"}, true, ""},
		{"more comments", Button{Tag: "button", Text: "Load more comments"}, true, ""},
		{"link away", Button{Tag: "a", Href: "https://elsewhere.example/more", Text: "Show more"}, false, "leaves the page"},
		{"link to next page", Button{Tag: "a", Href: "/feed?page=2", Text: "More"}, false, "leaves the page"},
		{"new window", Button{Tag: "a", Href: "#", Target: "_blank", Text: "More"}, false, "opens another window"},
		{"in a form", Button{Tag: "button", Type: "button", Text: "Load more", InForm: true}, false, "inside a form"},
		{"submit", Button{Tag: "button", Type: "submit", Text: "Load more"}, false, "submits or resets a form"},
		{"input submit", Button{Tag: "input", Type: "submit", Label: "More"}, false, "a form control"},
		{"disabled", Button{Tag: "button", Text: "Load more", Disabled: true}, false, "disabled"},
		{"delete", Button{Tag: "button", Text: "Delete all"}, false, "its words say it changes something"},
		{"more then delete", Button{Tag: "button", Text: "Show more or delete"}, false, "its words say it changes something"},
		{"delete in label", Button{Tag: "button", Text: "More", Label: "Remove more items"}, false, "its words say it changes something"},
		{"log out", Button{Tag: "button", Text: "Log out"}, false, "its words say it changes something"},
		{"buy more", Button{Tag: "button", Text: "Buy more"}, false, "its words say it changes something"},
		{"send", Button{Tag: "button", Text: "Send"}, false, "its words say it changes something"},
		{"german delete", Button{Tag: "button", Text: "Mehr löschen"}, false, "its words say it changes something"},
		{"french send", Button{Tag: "button", Text: "Envoyer plus"}, false, "its words say it changes something"},
		{"spanish buy", Button{Tag: "button", Text: "Comprar más"}, false, "its words say it changes something"},
		{"chinese delete", Button{Tag: "button", Text: "删除更多"}, false, "its words say it changes something"},
		{"russian log out", Button{Tag: "button", Text: "Выйти ещё"}, false, "its words say it changes something"},
		{"other button", Button{Tag: "button", Text: "Menu"}, false, "not a load-more button"},
		{"word inside a word", Button{Tag: "button", Text: "Moreover"}, false, "not a load-more button"},
		{"paragraph", Button{Tag: "div", Text: "There is more to this story than one could ever tell in a line"}, false, "not a load-more button"},
		{"empty", Button{Tag: "button"}, false, "not a load-more button"},
	} {
		ok, why := Safe(tc.b, page)
		if ok != tc.ok || why != tc.why {
			t.Errorf("%s: Safe(%+v) = %v, %q; want %v, %q", tc.name, tc.b, ok, why, tc.ok, tc.why)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Load more…":     "load more",
		" LOAD\n\tMORE ": "load more",
		"s'abonner!":     "s'abonner",
		"---":            "",
		"Más":            "más",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSafe: no label makes Safe panic, and a label with a dangerous word is never
// safe, whatever surrounds it.
func FuzzSafe(f *testing.F) {
	f.Add("Load more", "#", "")
	f.Add("Delete", "", "_blank")
	f.Add("もっと見る", "javascript:x", "")
	f.Fuzz(func(t *testing.T, text, href, target string) {
		for _, b := range []Button{
			{Tag: "button", Text: text, Href: href, Target: target},
			{Tag: "button", Text: text + " delete"},
			{Tag: "button", Text: "send " + text},
		} {
			ok, _ := Safe(b, "https://example.org/")
			if ok && Dangerous(b.Text) {
				t.Errorf("Safe(%+v) with a dangerous word", b)
			}
		}
		if ok, _ := Safe(Button{Tag: "button", Text: text + " delete"}, "https://example.org/"); ok {
			t.Errorf("%q: clicked a delete button", text+" delete")
		}
	})
}
