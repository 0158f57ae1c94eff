package urlrules_test

import (
	"fmt"

	"github.com/webkeep/webkeep/shared/urlrules"
)

// The document's long_form example.
func ExampleRules_Match() {
	rules, err := urlrules.Compile("example.org", []byte(`
long_form {
  required host = "[a-z0-9]+\.";
  optional version = flag("[0-9]+\.[0-9]+\.", "1.0.");
  required www = website("w{1,4}", "www");
  namespace canonalize {
    optional language = flag("[a-z][a-z]", "");
  };
}`))
	if err != nil {
		panic(err)
	}
	m, err := rules.Match("http://test.3.59.w.en.example.org/")
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Domain)
	fmt.Println(m.Website)
	fmt.Println(m.Options["version"], m.Options["language"])
	fmt.Println(m.Canonical)
	// Output:
	// example.org
	// test.www.example.org
	// 3.59 en
	// http://test.www.en.example.org/
}

func ExampleCompile_error() {
	_, err := urlrules.Compile("site.rules", []byte(`r {
  required version = flag("[0-9]+", "1");
  optional lang = "(?=en)..";
}`))
	fmt.Println(err)
	// Output:
	// site.rules:2:37: rule r: variable domain::version: required flag with a default: a required flag always has a value; remove the default "1"
	// site.rules:3:19: rule r: variable domain::lang: invalid regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?=` (patterns are Go RE2: no lookahead, lookbehind or backreferences)
}
