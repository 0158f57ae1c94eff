package main

import (
	"encoding/json"
	"fmt"
)

// apiError is an error answer of the core's API.
type apiError struct {
	Method, Path string
	Status       int
	// Message is the core's {"error": ...}, which says what went wrong and what to do;
	// empty when the answer had none.
	Message string
}

func (e *apiError) Error() string {
	switch {
	case e.Message != "":
		return e.Message
	case e.Status == 404:
		return fmt.Sprintf("%s %s: not found: the item is gone, or this version of the core does not offer it; reload the page", e.Method, e.Path)
	default:
		return fmt.Sprintf("%s %s: the core answered %d; reload the page and try again", e.Method, e.Path, e.Status)
	}
}

// decodeAnswer decodes a JSON answer of the API into out (if not nil), or returns the
// *apiError it reports.
func decodeAnswer(method, path string, status int, body string, out any) error {
	if status < 200 || status > 299 {
		e := &apiError{Method: method, Path: path, Status: status}
		var msg struct {
			Error string `json:"error"`
		}
		if json.Unmarshal([]byte(body), &msg) == nil {
			e.Message = msg.Error
		}
		return e
	}
	if out == nil || status == 204 {
		return nil
	}
	if err := json.Unmarshal([]byte(body), out); err != nil {
		return fmt.Errorf("%s %s: unexpected answer (%d bytes): %w", method, path, len(body), err)
	}
	return nil
}
