//go:build js && wasm

package jspromise

import (
	"errors"
	"syscall/js"
	"testing"
)

// evaluate runs JavaScript source (a function body) and returns what it returns.
func evaluate(src string) js.Value {
	return js.Global().Get("Function").New(src).Invoke()
}

func TestAwaitResolved(t *testing.T) {
	tests := []struct {
		name, src string
		want      string
	}{
		{"promise", `return Promise.resolve("yes")`, "yes"},
		{"later", `return new Promise(r => setTimeout(() => r("later"), 5))`, "later"},
		{"plain value", `return "plain"`, "plain"},
		{"undefined", `return Promise.resolve()`, "<undefined>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Await(evaluate(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tt.want {
				t.Errorf("value %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAwaitRejected(t *testing.T) {
	tests := []struct {
		name, src string
		want      string
	}{
		{"Error", `return Promise.reject(new Error("disk full"))`, "disk full"},
		{"TypeError", `return Promise.reject(new TypeError("Failed to fetch"))`, "Failed to fetch"},
		{"DOMException", `return Promise.reject(new DOMException("quota", "QuotaExceededError"))`, "quota"},
		{"string", `return Promise.reject("no such tab")`, "no such tab"},
		{"undefined", `return Promise.reject(undefined)`, "promise rejected with undefined"},
		{"no argument", `return new Promise((_, reject) => reject())`, "promise rejected with undefined"},
		{"null", `return Promise.reject(null)`, "promise rejected with null"},
		{"number", `return Promise.reject(42)`, "promise rejected with 42"},
		{"object", `return Promise.reject({code: 3})`, "promise rejected with [object Object]"},
		{"thrown later", `return new Promise((_, reject) => setTimeout(() => reject(new Error("late")), 5))`, "late"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Await(evaluate(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error %q, want %q", err, tt.want)
			}
			var r *Rejection
			if !errors.As(err, &r) {
				t.Fatalf("error %T, want *Rejection", err)
			}
		})
	}
}

func TestRejectionKeepsTheValue(t *testing.T) {
	_, err := Await(evaluate(`const e = new RangeError("too big"); e.code = 7; return Promise.reject(e)`))
	var r *Rejection
	if !errors.As(err, &r) {
		t.Fatalf("error %v (%T), want *Rejection", err, err)
	}
	if got := r.Value.Call("toString").String(); got != "RangeError: too big" {
		t.Errorf("toString %q", got)
	}
	if got := r.Value.Get("code").Int(); got != 7 {
		t.Errorf("code %d, want 7", got)
	}
}
