//go:build js && wasm

// Command ui renders webkeep's extension pages (popup, archive, options) in Go compiled
// to WebAssembly, with honnef.co/go/js/dom/v2. Each page is a thin view over the core's
// HTTP API at /api/, served by the service worker.
package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/webkeep/webkeep/wasm/jsglue"
)

// doc is the page's document, set when the page starts.
var doc dom.Document

func main() {
	doc = dom.GetWindow().Document()
	page := doc.QuerySelector("body").GetAttribute("data-page")
	switch page {
	case "popup":
		go popup()
	case "archive":
		go archive()
	default:
		showError(fmt.Errorf("unknown page %q", page))
	}
	select {}
}

// call sends a request to the core's API and decodes a JSON answer into out (if not nil).
func call(method, path string, out any) error {
	init := js.Global().Get("Object").New()
	init.Set("method", method)
	res, err := jsglue.Await(js.Global().Call("fetch", path, init))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	body, err := jsglue.Await(res.Call("text"))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if !res.Get("ok").Bool() {
		var e struct{ Error string }
		if json.Unmarshal([]byte(body.String()), &e) == nil && e.Error != "" {
			return fmt.Errorf("%s", e.Error)
		}
		return fmt.Errorf("%s %s: %s", method, path, res.Get("statusText").String())
	}
	if out == nil || res.Get("status").Int() == 204 {
		return nil
	}
	return json.Unmarshal([]byte(body.String()), out)
}

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

func byID(id string) dom.Element { return doc.GetElementByID(id) }

func clear(e dom.Element) {
	for e.FirstChild() != nil {
		e.RemoveChild(e.FirstChild())
	}
}

func showError(err error) {
	box := byID("error")
	if box == nil {
		js.Global().Get("console").Call("error", err.Error())
		return
	}
	box.SetTextContent(err.Error())
	box.RemoveAttribute("hidden")
}

func hideError() {
	if box := byID("error"); box != nil {
		box.SetAttribute("hidden", "")
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

// onClick runs f on its own goroutine when e is clicked: f may call the API.
func onClick(e dom.Element, f func()) {
	e.AddEventListener("click", false, func(dom.Event) { go f() })
}
