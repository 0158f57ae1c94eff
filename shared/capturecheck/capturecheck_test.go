package capturecheck

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
	"testing"
)

// picture draws a 320x200 page: white, with a dark band (a heading) from top to
// bottom, as JPEG.
func picture(t *testing.T, top, bottom int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for y := 0; y < 200; y++ {
		for x := 0; x < 320; x++ {
			c := color.RGBA{255, 255, 255, 255}
			if y >= top && y < bottom && x >= 20 && x < 300 {
				c = color.RGBA{30, 30, 60, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 70}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPictureDifference(t *testing.T) {
	page := picture(t, 20, 60)
	tests := []struct {
		name   string
		a, b   []byte
		lo, hi float64
	}{
		{"the same picture", page, page, 0, 0.001},
		{"encoded again", page, picture(t, 20, 60), 0, 0.01},
		{"the heading moved down", page, picture(t, 120, 160), 0.2, 1},
		{"no heading", page, picture(t, 0, 0), 0.1, 1},
	}
	for _, tt := range tests {
		d, err := PictureDifference(tt.a, tt.b)
		if err != nil || d < tt.lo || d > tt.hi {
			t.Errorf("%s: %v, %v; want %v to %v", tt.name, d, err, tt.lo, tt.hi)
		}
	}
	for _, bad := range [][]byte{nil, []byte("not a JPEG"), page[:100]} {
		if d, err := PictureDifference(page, bad); err == nil || d != -1 {
			t.Errorf("PictureDifference with %q: %v, %v; want -1 and an error", bad[:min(len(bad), 10)], d, err)
		}
	}
}

func TestTextSimilarity(t *testing.T) {
	tests := []struct {
		live, replayed string
		want           float64
	}{
		{"Der See in Zürich", "der see in ZURICH", 1},
		{"one two three four", "one two", 0.5},
		{"one two", "one two three four", 1},
		{"", "anything", 1},
		{"words", "", 0},
	}
	for _, tt := range tests {
		if got := TextSimilarity(tt.live, tt.replayed); got != tt.want {
			t.Errorf("TextSimilarity(%q, %q) = %v, want %v", tt.live, tt.replayed, got, tt.want)
		}
	}
}

func TestCompare(t *testing.T) {
	page, moved := picture(t, 20, 60), picture(t, 120, 160)
	live := Observation{Picture: page, Text: "Gallery of twelve pictures", Loaded: true}
	tests := []struct {
		name     string
		replayed Observation
		missed   []string
		verdict  string
		why      []string // substrings, one per reason, in order
	}{
		{"as live", Observation{Picture: page, Text: "Gallery of twelve pictures", Loaded: true}, nil, Replays, nil},
		{"a missed image", Observation{Picture: page, Text: "Gallery of twelve pictures", Loaded: true}, []string{"http://a/1.png"}, Differs, []string{"1 request the page asked for in replay is not in the archive"}},
		{"other text, other look", Observation{Picture: moved, Text: "Gallery", Loaded: true}, []string{"a", "b"}, Differs, []string{"2 requests", "25% of the words", "pictures differ by"}},
		{"not loaded", Observation{Loaded: false}, nil, Broken, []string{"did not load"}},
		{"no text", Observation{Picture: page, Loaded: true}, nil, Broken, []string{"shows no text in replay"}},
		{"no pictures to compare", Observation{Text: "Gallery of twelve pictures", Loaded: true}, nil, Replays, nil},
	}
	for _, tt := range tests {
		r := Compare(live, tt.replayed, tt.missed)
		if r.Verdict != tt.verdict || len(r.Why) != len(tt.why) {
			t.Errorf("%s: %s %q, want %s with %d reasons", tt.name, r.Verdict, r.Why, tt.verdict, len(tt.why))
			continue
		}
		for i, w := range tt.why {
			if !strings.Contains(r.Why[i], w) {
				t.Errorf("%s: reason %q, want it to say %q", tt.name, r.Why[i], w)
			}
		}
	}
}

// FuzzPictureDifference: any bytes as a picture give a difference from 0 to 1 or an
// error, never a panic.
func FuzzPictureDifference(f *testing.F) {
	page := picture(&testing.T{}, 20, 60)
	f.Add(page)
	f.Add(page[:len(page)/2])
	f.Add([]byte{0xff, 0xd8, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := PictureDifference(page, b)
		if err == nil && (d < 0 || d > 1) {
			t.Errorf("difference %v", d)
		}
	})
}
