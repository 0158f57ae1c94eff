// Package capturecheck tells whether a recorded page replays as it was: it compares
// what the page showed live once loaded (a picture and its visible text), with what
// its replay from the archive shows (the same, and the requests the replay asked for
// that the archive lacks), and gives a verdict with its reasons in plain words.
package capturecheck

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"strings"

	"github.com/webkeep/webkeep/shared/search"
)

// Verdicts.
const (
	Replays = "replays" // as it was live
	Differs = "differs" // it replays, not as it was: see why
	Broken  = "broken"  // it does not replay
)

// Thresholds of a difference worth telling.
const (
	// MaxPictureDifference is the largest mean difference of brightness (0 to 1)
	// between the live and the replayed pictures, on a grid of gridWidth cells a
	// row, that is still the same page: JPEG noise and a caret are below it.
	MaxPictureDifference = 0.08
	// MinTextSimilarity is the least share of words in common (0 to 1) between the
	// live and the replayed text that is still the same text.
	MinTextSimilarity = 0.9
)

// gridWidth is how many cells a row of the comparison grid has.
const gridWidth = 32

// maxPictureSide bounds the pictures compared (pictures of pages are 320 pixels
// wide): a larger one is refused before it is decoded.
const maxPictureSide = 4096

// An Observation is what a page showed: its picture (JPEG; nil for none), its
// visible text, and whether it loaded whole.
type Observation struct {
	Picture []byte
	Text    string
	Loaded  bool
}

// A Result is the verdict on one page's replay and why.
type Result struct {
	Verdict string
	// Why are the reasons of a verdict other than Replays, in plain words.
	Why []string
	// PictureDifference is the mean difference of brightness of the two
	// pictures, 0 (alike) to 1; -1 when either is missing or unreadable.
	PictureDifference float64
	// TextSimilarity is the share of words the two texts have in common, 0 to 1;
	// -1 when the live page had no text.
	TextSimilarity float64
}

// Compare gives the verdict on a replay: Broken when it did not load, or showed no
// text where the live page had some; Differs when it asked for requests the
// archive lacks (missed, the URLs), looks different, or says something else;
// Replays otherwise.
func Compare(live, replayed Observation, missed []string) Result {
	r := Result{Verdict: Replays, PictureDifference: -1, TextSimilarity: -1}
	if d, err := PictureDifference(live.Picture, replayed.Picture); err == nil {
		r.PictureDifference = d
	}
	if strings.TrimSpace(live.Text) != "" {
		r.TextSimilarity = TextSimilarity(live.Text, replayed.Text)
	}
	if !replayed.Loaded {
		r.Verdict = Broken
		r.Why = append(r.Why, "the page did not load in replay")
	} else if r.TextSimilarity == 0 && strings.TrimSpace(replayed.Text) == "" {
		r.Verdict = Broken
		r.Why = append(r.Why, "the page shows no text in replay, where it showed some live")
	}
	if n := len(missed); n > 0 {
		r.Why = append(r.Why, fmt.Sprintf("%s the page asked for in replay %s not in the archive", plural(n, "request"), isAre(n)))
	}
	if r.TextSimilarity >= 0 && r.TextSimilarity < MinTextSimilarity && r.Verdict != Broken {
		r.Why = append(r.Why, fmt.Sprintf("its text is not the same: %.0f%% of the words it showed live are there", r.TextSimilarity*100))
	}
	if r.PictureDifference > MaxPictureDifference {
		r.Why = append(r.Why, fmt.Sprintf("it does not look the same: the pictures differ by %.0f%%", r.PictureDifference*100))
	}
	if r.Verdict == Replays && len(r.Why) > 0 {
		r.Verdict = Differs
	}
	return r
}

func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// TextSimilarity is the share of the distinct words of live (as search tokenizes
// them: case and accents folded) that are in replayed, 0 to 1; 1 when live has none.
func TextSimilarity(live, replayed string) float64 {
	want := map[string]bool{}
	for _, t := range search.Tokenize(live) {
		want[t.Term] = true
	}
	if len(want) == 0 {
		return 1
	}
	have := map[string]bool{}
	for _, t := range search.Tokenize(replayed) {
		have[t.Term] = true
	}
	n := 0
	for w := range want {
		if have[w] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// PictureDifference is the mean difference of brightness, 0 to 1, between two
// JPEG pictures, each reduced to a grid of gridWidth cells a row (the average
// brightness of each cell), over the rows both have.
func PictureDifference(a, b []byte) (float64, error) {
	ga, err := grid(a)
	if err != nil {
		return -1, fmt.Errorf("capturecheck: live picture: %w", err)
	}
	gb, err := grid(b)
	if err != nil {
		return -1, fmt.Errorf("capturecheck: replayed picture: %w", err)
	}
	rows := min(len(ga), len(gb))
	if rows == 0 {
		return -1, fmt.Errorf("capturecheck: an empty picture")
	}
	sum := 0.0
	for y := 0; y < rows; y++ {
		for x := 0; x < gridWidth; x++ {
			sum += math.Abs(ga[y][x] - gb[y][x])
		}
	}
	return sum / float64(rows*gridWidth), nil
}

// grid reduces a JPEG to rows of gridWidth cells of average brightness (0 to 1),
// the cells square.
func grid(b []byte) ([][gridWidth]float64, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("no picture")
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if cfg.Width > maxPictureSide || cfg.Height > maxPictureSide {
		return nil, fmt.Errorf("a picture of %dx%d pixels, larger than %d on a side", cfg.Width, cfg.Height, maxPictureSide)
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	bounds := img.Bounds()
	w, h := bounds.Dx(), bounds.Dy()
	if w < gridWidth {
		return nil, fmt.Errorf("a picture %d pixels wide", w)
	}
	cell := float64(w) / gridWidth
	rows := int(float64(h) / cell)
	out := make([][gridWidth]float64, rows)
	counts := make([][gridWidth]int, rows)
	for y := bounds.Min.Y; y < bounds.Min.Y+int(float64(rows)*cell); y++ {
		row := int(float64(y-bounds.Min.Y) / cell)
		if row >= rows {
			break
		}
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			col := min(int(float64(x-bounds.Min.X)/cell), gridWidth-1)
			out[row][col] += brightness(img, x, y)
			counts[row][col]++
		}
	}
	for y := range out {
		for x := range out[y] {
			if counts[y][x] > 0 {
				out[y][x] /= float64(counts[y][x])
			}
		}
	}
	return out, nil
}

// brightness is a pixel's luma, 0 to 1.
func brightness(img image.Image, x, y int) float64 {
	r, g, b, _ := img.At(x, y).RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 0xffff
}
