package recorder

import (
	"errors"
	"testing"
)

func TestPlainError(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"code":-32000,"message":"No resource with given identifier found"}`, "No resource with given identifier found"},
		{`Error: {"code":-32602,"message":"Invalid parameters","data":"Failed to deserialize params.requestId"}`, "Error: Invalid parameters (Failed to deserialize params.requestId)"},
		{`{"code":1}`, `{"code":1}`},
		{`{"code":-32000,"message":"cut`, `{"code":-32000,"message":"cut`},
		{"plain words", "plain words"},
	} {
		in := errors.New(tt.in)
		got := plainError(in)
		if got.Error() != tt.want || !errors.Is(got, in) {
			t.Errorf("plainError(%q) = %q, want %q (wrapping the original)", tt.in, got, tt.want)
		}
	}
}
