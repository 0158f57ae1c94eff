//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"sync"
	"syscall/js"
	"time"

	"github.com/webkeep/webkeep/shared/capture"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/webrequest"
	"github.com/webkeep/webkeep/wasm/jsglue"
)

// firefox turns what Firefox's background page (extension-firefox/background.js) hands
// over into the recorder's events (webrequest.Translator).
type firefox struct {
	svc *capture.Service
	ctx context.Context
	mu  sync.Mutex // the translator, between the page's calls and the core's
	t   *webrequest.Translator
}

// register publishes the calls of Firefox's background page on the core's API object:
// webRequest(kind, detailsJSON), bodyData(tabId, requestId, length, routed, bytes),
// upload(tabId, payloadJSON, bytes), leaving(tabId, frameId, at) and forgetTab(tabId);
// and the page's waits, in milliseconds: openWaitMs, how long it holds the requests of
// a tab a recorded tab opened (webrequest.OpenWait); leaveCheckMs, how long after a
// body's filter stopped it says the body ended (webrequest.LeaveCheck); bodyWaitMs,
// forgetAfterMs, keepAliveMs and pieceWaitMs (webrequest.BodyWait, Forget, KeepAlive
// and PieceWait).
func (f *firefox) register(api js.Value) {
	for name, d := range map[string]time.Duration{
		"openWaitMs": webrequest.OpenWait, "leaveCheckMs": webrequest.LeaveCheck,
		"bodyWaitMs": webrequest.BodyWait, "forgetAfterMs": webrequest.Forget, "keepAliveMs": webrequest.KeepAlive,
		"pieceWaitMs": webrequest.PieceWait,
	} {
		api.Set(name, d.Milliseconds())
	}
	api.Set("webRequest", js.FuncOf(func(this js.Value, args []js.Value) any {
		f.mu.Lock()
		events, err := f.t.Handle(args[0].String(), []byte(args[1].String()))
		f.mu.Unlock()
		if err != nil {
			js.Global().Get("console").Call("error", "webkeep core: "+err.Error())
		}
		f.send(events...)
		return nil
	}))
	api.Set("bodyData", js.FuncOf(func(this js.Value, args []js.Value) any {
		var data []byte
		if args[4].Type() == js.TypeObject {
			data = jsglue.Bytes(args[4])
		}
		f.send(webrequest.BodyData(args[0].Int(), args[1].String(), args[2].Int(), args[3].Truthy(), data))
		return nil
	}))
	api.Set("upload", js.FuncOf(func(this js.Value, args []js.Value) any {
		var data []byte
		if args[2].Type() == js.TypeObject {
			data = jsglue.Bytes(args[2])
		}
		f.send(webrequest.Upload(args[0].Int(), []byte(args[1].String()), data))
		return nil
	}))
	api.Set("leaving", js.FuncOf(func(this js.Value, args []js.Value) any {
		f.mu.Lock()
		f.t.Leaving(args[0].Int(), args[1].Int(), args[2].Float())
		f.mu.Unlock()
		return nil
	}))
	api.Set("forgetTab", js.FuncOf(func(this js.Value, args []js.Value) any {
		f.mu.Lock()
		f.t.Forget(args[0].Int())
		f.mu.Unlock()
		return nil
	}))
}

// attached tells the translator that tab is recorded, and whether the background page
// held its requests from its start (webrequest.OpenWait).
func (f *firefox) attached(tab int, heldFromStart bool) {
	f.mu.Lock()
	f.t.Attached(tab, heldFromStart)
	f.mu.Unlock()
}

// answer is the translator's answer to a command for tab (webrequest
// Translator.Answer): ok is false for a command the background page answers.
func (f *firefox) answer(tab int, method string) (result json.RawMessage, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t.Answer(tab, method)
}

// send hands the events to the service.
func (f *firefox) send(events ...webrequest.Event) {
	for _, e := range events {
		f.svc.Event(f.ctx, recorder.Target{TabID: e.Tab}, e.Method, e.Params, e.Data)
	}
}
