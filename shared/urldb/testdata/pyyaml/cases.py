# Generates input documents exercising PyYAML's scalar styles and layout.
import yaml
strings = ["plain", "", " lead", "trail ", "yes", "No", "on", "null", "~", "123", "0x1F", "1:30", "1.5", "1e5", ".inf",
  "2020-01-01", "2001-12-14 21:59:43.10 -5", "=", "<<", "a: b", "a #b", "a#b", "#x", "-x", "- x", "?x", "? x", ":x", "x:", "[x]", "x[0]",
  "{a}", "a,b", "it's", "say \"hi\"", "back\\slash", "tab\there", "line\nbreak", "two\n\nbreaks", "trail\n", " \nx", "x \ny",
  "caf\u00e9", "snow\u2603man", "emoji\U0001F600", "nbsp\u00a0x", "del\x7fx", "bell\x07", "---", "--- x", "...", "%x", "@x", "`x", "!x", "&x", "*x", "|x", ">x",
  "word " * 30, "long" * 40, "a" * 130, "x " * 60 + "'q'", ("dq\u00e9 " * 30),
  "http://example.com/a?b=c&d=e", "/path with spaces/and:colons", "'", "\"", "0", "-1", "+1", "0o17", "0b101", "010", "08", "1_000", "TRUE", "y", "n"]
values = [None, True, False, 0, -7, 10**30, 1.5, -0.0, 1e16, 1.25e-7, float('inf'), 3.0, 12345.678, [], {}, ["a", 1, None, [2, [3]], {"k": "v", "j": [1]}],
  {"nested": {"deep": {"x": 1}, "list": ["p", "q"]}, "a": []}]
docs = [{"https": True, "odd-key": "v", "cnames": ["b.example", "a.example"]}]
for i, s in enumerate(strings):
    docs.append({"_path": "/s%03d" % i, "content-type": "text/plain", "x-extra": s, s if s and len(s) < 200 else "k%d" % i: "value"})
for i, v in enumerate(values):
    docs.append({"_path": "/v%03d" % i, "content-type": "text/plain", "x-extra": v})
docs.append({"_path": "/static", "content-type": "application/octet-stream", "content-length": 3,
  "content-sha256": "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD", "categories": ["z", "a", "a"]})
docs.append({"_path": "/static", "content-type": "text/html"})
docs.append({"_path": "/nolength", "content-type": "text/html", "content-sha256": "abc", "content-length": None})
docs.append({"_path": "/%7Eq", "content-type": "X-301-Redirect", 5: "int key", "zz": 1})
print(yaml.dump_all(docs, explicit_start=True, sort_keys=False, default_flow_style=None, width=1000, allow_unicode=True), end="")
