#!/usr/bin/env bash
# Parsing and matching speed of shared/datatxt (data.txt / robots.txt) and
# shared/urlrules (Snap!-style URL rules). Prints a markdown section on stdout
# (collected by `make bench`).
set -euo pipefail
cd "$(dirname "$0")/../../.."
cmd='go test -run XXX -bench . -benchtime=1s ./shared/datatxt ./shared/urlrules'
echo "## Site rules: data.txt and URL rules"
echo
echo "\`$cmd\`"
echo
echo "| benchmark | what | ns/op | MB/s |"
echo "|---|---|---:|---:|"
$cmd | awk '
  BEGIN {
    d["datatxt.BenchmarkParse"] = "parse a robots.txt of 201 records, 2,000 rules"
    d["datatxt.BenchmarkAllowed"] = "one decision, all 201 records scanned"
    d["datatxt.BenchmarkParseYAML"] = "parse a YAML data.txt of 500 entries (gopkg.in/yaml.v3)"
    d["urlrules.BenchmarkCompile"] = "compile testdata/m2osw.rules (3 rules)"
    d["urlrules.BenchmarkMatchLongForm"] = "match one URL: the document'"'"'s long_form"
    d["urlrules.BenchmarkMatchWebsiteRules"] = "match one URL: domain and website rules, query"
  }
  /^pkg:/ { pkg = $2; sub(".*/", "", pkg) }
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name); key = pkg "." name
    mbs = ($6 == "MB/s") ? $5 : ""
    printf "| %s | %s | %s | %s |\n", key, d[key], $3, mbs
  }'
