package webrequest

import (
	"encoding/json"
	"errors"
)

// noOps are the recorder's commands that Firefox needs nothing for: webRequest reports
// every request of a recorded tab, its workers' included, and keeps no bodies to
// configure; the content script (extension-firefox/content.js) runs in every page from
// its start, where Chromium's recorder has its script run (Runtime.addBinding,
// Page.addScriptToEvaluateOnNewDocument).
var noOps = map[string]bool{
	"Network.enable": true, "Network.setCacheDisabled": true, "Network.configureDurableMessages": true, "Page.enable": true,
	"Target.setAutoAttach": true, "Runtime.runIfWaitingForDebugger": true, "IO.close": true,
	"Runtime.enable": true, "Runtime.addBinding": true, "Page.addScriptToEvaluateOnNewDocument": true,
}

// shimCommands are the commands the Firefox shim answers: a response body from the
// bytes its StreamFilter passed on (read whole or streamed from now on), the tab's
// address, a reload, autopilot's calls of its page script and the question of what a
// page shows (Runtime.evaluate, of which the shim answers those alone: its content
// script runs the script and reads the page), and a picture of the page
// (Page.captureScreenshot, by browser.tabs.captureTab).
var shimCommands = map[string]bool{
	"Network.getResponseBody": true, "Network.streamResourceContent": true,
	"Page.getNavigationHistory": true, "Page.reload": true, "Runtime.evaluate": true,
	"Page.captureScreenshot": true,
}

// ErrFormFieldsOnly answers Network.getRequestPostData: Firefox gives a request body
// it does not give as bytes only as form fields, with the request.
var ErrFormFieldsOnly = errors.New("Firefox gave this body only as form fields, not as bytes")

// ErrNoStreams answers a read of a DevTools IO stream, which Firefox does not have.
var ErrNoStreams = errors.New("DevTools streams are not available in Firefox")

// Answer answers a recorder's command for tab in Firefox without the shim: ok is false
// for a command the shim answers, which is then to be sent to it; else the answer is
// the command's result, or err says why Firefox cannot do it. Besides the commands
// Firefox needs nothing for, it answers those whose answer the translator knows from
// what it was told of the tab (Page.getNavigationHistory for a tab held from its
// start: navigationHistory).
func (t *Translator) Answer(tab int, method string) (result json.RawMessage, ok bool, err error) {
	if method == "Page.getNavigationHistory" {
		if result, ok := t.navigationHistory(tab); ok {
			return result, true, nil
		}
	}
	return answer(method)
}

// answer is Translator.Answer for the commands whose answer is the same for every tab.
func answer(method string) (result json.RawMessage, ok bool, err error) {
	switch {
	case shimCommands[method]:
		return nil, false, nil
	case noOps[method]:
		return json.RawMessage("{}"), true, nil
	case method == "Network.getRequestPostData":
		return nil, true, ErrFormFieldsOnly
	}
	return nil, true, errors.New(method + " is not available in Firefox")
}
