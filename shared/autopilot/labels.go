package autopilot

import (
	"net/url"
	"strings"
	"unicode"
)

// A Button is an element the page script offers as something to click: a <button>,
// an <input> of type button or submit, an element of role button, or a link.
type Button struct {
	// ID names the element in the page for an Action (the page script numbers the
	// elements it reports, and keeps the numbers while the document lives).
	ID int `json:"id"`
	// Tag is the element's tag name in lower case ("button", "a", "input", "div").
	Tag string `json:"tag"`
	// Type is its type attribute, lower case ("" when it has none).
	Type string `json:"type,omitempty"`
	// Text is its visible text; Label its aria-label, title or value.
	Text  string `json:"text"`
	Label string `json:"label,omitempty"`
	// Href is a link's href as written, and Target its target attribute.
	Href   string `json:"href,omitempty"`
	Target string `json:"target,omitempty"`
	// InForm says the element is inside a form or names one (its form attribute).
	InForm bool `json:"inForm,omitempty"`
	// Disabled says it is disabled (disabled or aria-disabled).
	Disabled bool `json:"disabled,omitempty"`
}

// maxLabelRunes is the longest label a "load more" button is taken to have: a longer
// text is a paragraph or an item, not a control.
const maxLabelRunes = 40

// moreLabels are what "load more"-style buttons say, normalized (see normalize), in
// English, German, French, Spanish, Italian, Portuguese, Dutch, Russian, Japanese and
// Chinese. A label matches when it holds one of them as whole words (as a substring
// for the scripts written without spaces).
var moreLabels = []string{
	"more", "load more", "show more", "see more", "view more", "more results", "more items",
	"more posts", "more comments", "more replies", "show all", "see all", "view all",
	"expand", "older posts", "show older", "load older", "load newer", "show newer",
	"mehr", "mehr laden", "mehr anzeigen", "weitere laden", "weitere anzeigen", "alle anzeigen",
	"plus", "charger plus", "voir plus", "afficher plus", "tout afficher",
	"más", "cargar más", "ver más", "mostrar más",
	"altro", "altri", "carica altri", "mostra altri", "mostra di più",
	"mais", "carregar mais", "ver mais", "mostrar mais",
	"meer", "meer laden", "meer weergeven", "toon meer",
	"ещё", "еще", "показать ещё", "показать еще", "загрузить ещё", "загрузить еще",
	"もっと見る", "さらに表示", "もっと読み込む",
	"加载更多", "查看更多", "显示更多", "更多",
}

// dangerLabels are words of buttons that delete, post, buy, sign out or otherwise
// change something: a label holding any of them is never clicked, whatever else it
// says. Same languages and matching as moreLabels.
var dangerLabels = []string{
	"delete", "remove", "erase", "clear", "discard", "submit", "send", "post", "publish",
	"reply", "comment", "save", "buy", "purchase", "order", "pay", "checkout", "check out",
	"donate", "subscribe", "unsubscribe", "follow", "unfollow", "like", "share", "report",
	"block", "mute", "log out", "logout", "log off", "sign out", "signout", "sign in",
	"log in", "login", "sign up", "register", "confirm", "accept", "agree", "decline",
	"cancel", "close account", "upload", "download", "install", "vote", "add to cart",
	"löschen", "entfernen", "senden", "absenden", "speichern", "kaufen", "bestellen",
	"bezahlen", "abmelden", "ausloggen", "anmelden", "abonnieren",
	"supprimer", "effacer", "envoyer", "publier", "enregistrer", "acheter", "commander",
	"payer", "déconnexion", "se déconnecter", "connexion", "s'abonner",
	"eliminar", "borrar", "enviar", "publicar", "guardar", "comprar", "pagar",
	"cerrar sesión", "suscribirse",
	"elimina", "cancella", "invia", "pubblica", "salva", "acquista", "paga", "esci",
	"excluir", "apagar", "sair",
	"verwijderen", "verzenden", "kopen", "afmelden", "uitloggen",
	"удалить", "отправить", "опубликовать", "сохранить", "купить", "оплатить", "выйти",
	"削除", "送信", "投稿", "保存", "購入", "ログアウト", "登録",
	"删除", "发送", "发布", "保存", "购买", "支付", "退出", "注销", "提交",
}

// normalize lowers s and turns every run of characters that are neither letters
// nor digits into one space, trimmed: "Load more…" and "LOAD  MORE" are "load more".
func normalize(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// spaceless reports whether s is written in a script without spaces between words
// (Han, Hiragana, Katakana), where a label is matched as a substring.
func spaceless(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// holds reports whether the normalized text holds one of the normalized phrases:
// as whole words, or as a substring for a phrase written without spaces.
func holds(text string, phrases []string) bool {
	padded := " " + text + " "
	for _, p := range phrases {
		if spaceless(p) {
			if strings.Contains(text, p) {
				return true
			}
			continue
		}
		if strings.Contains(padded, " "+normalize(p)+" ") {
			return true
		}
	}
	return false
}

// Dangerous reports whether a button's words say it deletes, posts, buys, signs out or
// otherwise changes something (dangerLabels).
func Dangerous(label string) bool {
	return holds(normalize(label), dangerLabels)
}

// LooksLikeMore reports whether a label is one a "load more" button has (moreLabels),
// and not a dangerous one.
func LooksLikeMore(label string) bool {
	n := normalize(label)
	if n == "" || len([]rune(n)) > maxLabelRunes {
		return false
	}
	return holds(n, moreLabels) && !holds(n, dangerLabels)
}

// label is the words a button is known by: its text, else its label.
func (b Button) label() string {
	if t := strings.TrimSpace(b.Text); t != "" {
		return t
	}
	return strings.TrimSpace(b.Label)
}

// Safe reports whether autopilot may click b in the page at pageURL, and if not, why.
// It clicks only what loads more of the same page: never a disabled element, nothing
// inside a form (a click there may submit it), no submit or reset control, no link
// to another document or another window, and nothing whose text or label holds a
// dangerous word; and only an element whose words say it shows more.
func Safe(b Button, pageURL string) (bool, string) {
	switch {
	case b.Disabled:
		return false, "disabled"
	case b.InForm:
		return false, "inside a form"
	case b.Tag == "input" && b.Type != "button":
		return false, "a form control"
	case b.Type == "submit" || b.Type == "reset" || b.Type == "image":
		return false, "submits or resets a form"
	case Dangerous(b.Text) || Dangerous(b.Label):
		return false, "its words say it changes something"
	}
	if b.Tag == "a" || b.Href != "" {
		if t := strings.ToLower(strings.TrimSpace(b.Target)); t != "" && t != "_self" {
			return false, "opens another window"
		}
		if leaves(b.Href, pageURL) {
			return false, "leaves the page"
		}
	}
	if !LooksLikeMore(b.label()) {
		return false, "not a load-more button"
	}
	return true, ""
}

// leaves reports whether following href from the page at pageURL shows another
// document: anything but a link to a fragment of the same page, a javascript: link
// or no href at all. An href that does not parse leaves.
func leaves(href, pageURL string) bool {
	h := strings.TrimSpace(href)
	if h == "" || strings.HasPrefix(h, "#") {
		return false
	}
	if len(h) >= 11 && strings.EqualFold(h[:11], "javascript:") {
		return false
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return true
	}
	u, err := base.Parse(h)
	if err != nil {
		return true
	}
	u.Fragment, u.RawFragment = "", ""
	b := *base
	b.Fragment, b.RawFragment = "", ""
	return u.String() != b.String()
}
