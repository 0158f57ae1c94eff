//go:build js && wasm

// Command ui renders webkeep's extension pages (popup, archive, options) in Go compiled
// to WebAssembly, with honnef.co/go/js/dom/v2. Each page is a thin view over the core's
// HTTP API at /api/ (docs/api.md), served by the service worker. The pages' structure
// is in their HTML; the Go code fills it in and wires it up.
package main

import (
	"fmt"
	"net/url"
	"syscall/js"

	"honnef.co/go/js/dom/v2"
)

// doc is the page's document, set when the page starts: nothing touches the DOM at
// package initialisation, so the package's tests run under node.
var doc dom.Document

func main() {
	doc = dom.GetWindow().Document()
	page := doc.QuerySelector("body").GetAttribute("data-page")
	switch page {
	case "popup":
		go safely(popup)
	case "archive":
		go safely(archive)
	case "options":
		go safely(options)
	default:
		showError(fmt.Errorf("unknown page %q: reinstall the extension", page))
	}
	select {}
}

// markReady marks the page's body data-ready="true" once every control of the page is
// wired: what is clicked or chosen from then on is heard.
func markReady() { doc.QuerySelector("body").SetAttribute("data-ready", "true") }

// el makes an element with text and attributes given as name, value pairs.
func el(tag, text string, attrs ...string) dom.Element {
	e := doc.CreateElement(tag)
	if text != "" {
		e.SetTextContent(text)
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		e.SetAttribute(attrs[i], attrs[i+1])
	}
	return e
}

// add appends children to parent and returns parent.
func add(parent dom.Element, children ...dom.Node) dom.Element {
	for _, c := range children {
		parent.AppendChild(c)
	}
	return parent
}

// text makes a text node.
func text(s string) dom.Node { return doc.CreateTextNode(s) }

// byID returns the element with the id; a page without it is a broken install.
func byID(id string) dom.Element {
	e := doc.GetElementByID(id)
	if e == nil {
		panic("webkeep ui: the page has no #" + id)
	}
	return e
}

func setText(id, s string) { byID(id).SetTextContent(s) }

// clear removes every child of e.
func clear(e dom.Element) {
	for e.FirstChild() != nil {
		e.RemoveChild(e.FirstChild())
	}
}

func show(e dom.Element, on bool) {
	if on {
		e.RemoveAttribute("hidden")
	} else {
		e.SetAttribute("hidden", "")
	}
}

// value is the value of a form control (input, select or textarea).
func value(id string) string { return byID(id).Underlying().Get("value").String() }

func setValue(id, v string) { byID(id).Underlying().Set("value", v) }

func checked(id string) bool { return byID(id).Underlying().Get("checked").Bool() }

func setChecked(id string, on bool) { byID(id).Underlying().Set("checked", on) }

func setDisabled(e dom.Element, on bool) { e.Underlying().Set("disabled", on) }

// showError shows err in the page's #error box; every message says what to do.
func showError(err error) {
	box := doc.GetElementByID("error")
	if box == nil {
		js.Global().Get("console").Call("error", err.Error())
		return
	}
	box.SetTextContent(err.Error())
	show(box, true)
}

// notice tells the user that something worked.
func notice(msg string) {
	setText("notice", msg)
	show(byID("notice"), true)
}

func hideError() {
	if box := doc.GetElementByID("error"); box != nil {
		show(box, false)
	}
}

// query returns a parameter of the page's own URL.
func query(name string) string {
	u, err := url.Parse(js.Global().Get("location").Get("href").String())
	if err != nil {
		return ""
	}
	return u.Query().Get(name)
}

// safely runs f, showing a panic as an error instead of ending the page's program: the
// rest of the page keeps working.
func safely(f func()) {
	defer func() {
		if p := recover(); p != nil {
			showError(fmt.Errorf("webkeep: internal error: %v; reload the page, and report it if it happens again", p))
		}
	}()
	f()
}

// on runs f on its own goroutine for each event of the kind on e: f may call the API,
// which waits for JavaScript promises and so must not run on the event's own goroutine.
func on(e dom.Element, kind string, f func(dom.Event)) {
	e.AddEventListener(kind, false, func(ev dom.Event) { go safely(func() { f(ev) }) })
}

// onClick runs f on its own goroutine when e is clicked.
func onClick(e dom.Element, f func()) {
	e.AddEventListener("click", false, func(ev dom.Event) {
		ev.PreventDefault()
		go safely(f)
	})
}

// button makes a button that runs f when clicked.
func button(label, class string, f func(), attrs ...string) dom.Element {
	b := el("button", label, append([]string{"type", "button", "class", class}, attrs...)...)
	onClick(b, f)
	return b
}

func focus(e dom.Element) { e.Underlying().Call("focus") }
