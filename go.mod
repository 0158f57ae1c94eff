module github.com/webkeep/webkeep

go 1.26.0

require (
	github.com/digitorus/pkcs7 v0.0.0-20250730155240-ffadbf3f398c
	github.com/digitorus/timestamp v0.0.0-20250524132541-c45532741eea
	github.com/klauspost/compress v1.20.3
	github.com/syumai/workers v0.33.0
	golang.org/x/image v0.47.0
	golang.org/x/mod v0.41.0
	golang.org/x/net v0.62.0
	gopkg.in/yaml.v3 v3.0.1
	honnef.co/go/js/dom/v2 v2.0.0-20250304181735-b5e52f05e89d
)

require golang.org/x/text v0.43.0

replace gopkg.in/yaml.v3 v3.0.1 => ./third_party/yaml.v3
