// Package recordertest gives the tests of a recorder's users, and the recorder's own,
// a browser to record from: a fake that answers DevTools commands from a function
// and logs every command it got.
package recordertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/webkeep/webkeep/shared/recorder"
)

// Browser is a recorder.Browser that answers commands with Answer and logs them.
type Browser struct {
	// Answer returns the result of a command, given its parameters as JSON decodes
	// them; nil answers every command with an empty result.
	Answer func(method string, params map[string]any) (any, error)

	mu       sync.Mutex
	commands []string
}

// Send logs the command as "method requestId" and answers it with Answer.
func (b *Browser) Send(ctx context.Context, t recorder.Target, method string, params any) (json.RawMessage, error) {
	var p map[string]any
	if params != nil {
		raw, _ := json.Marshal(params)
		json.Unmarshal(raw, &p)
	}
	b.mu.Lock()
	b.commands = append(b.commands, fmt.Sprintf("%s %v", method, p["requestId"]))
	b.mu.Unlock()
	if b.Answer == nil {
		return json.RawMessage("{}"), nil
	}
	v, err := b.Answer(method, p)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("recordertest: the answer to %s: %w", method, err)
	}
	return raw, nil
}

// Sent returns the logged commands that begin with prefix, in the order they were sent.
func (b *Browser) Sent(prefix string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, c := range b.commands {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// Event is a DevTools event to hand a recorder (or its owner): its method, its
// parameters as JSON, and the bytes a host may hand over with it (see HandleEvent).
type Event struct {
	Method string
	Params string
	Data   []byte
}
