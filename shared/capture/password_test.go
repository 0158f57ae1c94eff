package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/url"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
)

func TestPasswordName(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "Password": true, "wpPassword": true, "new_password2": true, "passwd": true,
		"pass": true, "pwd": true, "PW": true, "user_pass": true, "login[pass]": true, "passphrase": true,
		"user": false, "passenger": false, "compass": false, "bypass_cache": false, "pwdx": false, "email": false,
	} {
		if got := passwordName(name); got != want {
			t.Errorf("passwordName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPasswordFields(t *testing.T) {
	r := url.QueryEscape(redactedValue)
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.SetBoundary("XyZ")
	mw.WriteField("user", "zoë")
	mw.WriteField("secret", "hunter2")
	fw, _ := mw.CreateFormFile("password", "password.txt") // a file, not a password
	fw.Write([]byte("file bytes"))
	mw.WriteField("pwd", "second\r\nline")
	mw.Close()
	wantMP := strings.NewReplacer("hunter2", redactedValue, "second\r\nline", redactedValue).Replace(mp.String())
	tests := []struct {
		name, ctype, body string
		dom               []string
		want              string
		found             []string
	}{
		{"urlencoded, by name", "application/x-www-form-urlencoded", "user=zo%C3%AB&password=hunter2&next=%2F", nil,
			"user=zo%C3%AB&password=" + r + "&next=%2F", []string{"password"}},
		{"urlencoded, by the page's DOM", "application/x-www-form-urlencoded; charset=UTF-8", "user=a&secret=s%26x&secret=again&pw", []string{"secret"},
			"user=a&secret=" + r + "&secret=" + r + "&pw", []string{"secret", "secret", "pw"}},
		{"urlencoded, nothing to hide", "application/x-www-form-urlencoded", "q=password&page=2", nil, "q=password&page=2", nil},
		{"multipart", "multipart/form-data; boundary=XyZ", mp.String(), []string{"secret"}, wantMP, []string{"secret", "pwd"}},
		{"json", "application/json", `{"user": "a", "auth": {"password" : "p\"w", "otp": 1}, "list": [{"pwd":"x"}], "password2": null}`, nil,
			`{"user": "a", "auth": {"password" : "` + redactedValue + `", "otp": 1}, "list": [{"pwd":"` + redactedValue + `"}], "password2": null}`, []string{"password", "pwd"}},
		{"not json", "application/json", `{"password": "x"`, nil, `{"password": "x"`, nil},
		{"another type", "text/plain", "password=x", nil, "password=x", nil},
		{"no type", "", "password=x", nil, "password=x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := passwordFields(tt.ctype, []byte(tt.body), tt.dom, true)
			if string(got) != tt.want || strings.Join(found, ",") != strings.Join(tt.found, ",") {
				t.Errorf("got %q, %q\nwant %q, %q", got, found, tt.want, tt.found)
			}
			kept, found2 := passwordFields(tt.ctype, []byte(tt.body), tt.dom, false)
			if string(kept) != tt.body || strings.Join(found2, ",") != strings.Join(tt.found, ",") {
				t.Errorf("without redacting: %q, %q", kept, found2)
			}
		})
	}
	// The redacted JSON is still JSON.
	got, _ := passwordFields("application/json", []byte(tests[4].body), nil, true)
	if !json.Valid(got) {
		t.Errorf("redacted JSON is not JSON: %s", got)
	}
}

func FuzzPasswordFields(f *testing.F) {
	f.Add("application/x-www-form-urlencoded", "a=1&password=2&%zz=3")
	f.Add("multipart/form-data; boundary=B", "--B\r\nContent-Disposition: form-data; name=\"pass\"\r\n\r\nx\r\n--B--\r\n")
	f.Add("application/json", `{"password":"x","a":[{"pwd":"y"}]}`)
	f.Add("application/json", strings.Repeat("[", 500))
	f.Fuzz(func(t *testing.T, ctype, body string) {
		got, found := passwordFields(ctype, []byte(body), []string{"secret"}, true)
		if len(found) == 0 && string(got) != body {
			t.Fatalf("changed a body with no password: %q -> %q", body, got)
		}
		kept, _ := passwordFields(ctype, []byte(body), nil, false)
		if string(kept) != body {
			t.Fatal("changed a body while not redacting")
		}
		if strings.HasPrefix(ctype, "application/json") && json.Valid([]byte(body)) && !json.Valid(got) {
			t.Fatalf("redacting made JSON invalid: %q -> %q", body, got)
		}
	})
}

// The fields of type password that the recorder found in the form's page are
// redacted, though their names do not say "password".
func TestRedactPasswordsOfTheFormsPage(t *testing.T) {
	ex := &recorder.Exchange{
		Method: "POST", URL: "http://example.org/login",
		ReqHeader:   recorder.Fields{{Name: "Content-Type", Value: "application/x-www-form-urlencoded"}},
		ReqBody:     []byte("user=a&secret=b"),
		PasswordDOM: []string{"secret"},
	}
	redactPasswords(ex, true)
	if string(ex.ReqBody) != "user=a&secret=%5Bredacted+by+webkeep%5D" || fmt.Sprint(ex.PasswordFields) != "[secret]" {
		t.Errorf("body %q, fields %v", ex.ReqBody, ex.PasswordFields)
	}
}
