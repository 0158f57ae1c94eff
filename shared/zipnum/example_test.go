package zipnum_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/webkeep/webkeep/shared/zipnum"
)

func Example() {
	lines := []string{
		`com,example)/ 20240101000000 {"url": "https://example.com/"}`,
		`com,example)/ 20240202000000 {"url": "https://example.com/"}`,
		`com,example)/about 20240101000000 {"url": "https://example.com/about"}`,
		`org,example)/ 20240101000000 {"url": "https://example.org/"}`,
		`org,example)/ 20240303000000 {"url": "https://example.org/"}`,
	}

	// Write the blocks file, two lines a block, and its summary.
	var blocksFile bytes.Buffer
	w := zipnum.NewWriter(&blocksFile, 2)
	for _, l := range lines {
		if err := w.WriteLine([]byte(l)); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	var summary bytes.Buffer
	if err := zipnum.WriteSummary(&summary, "cdx-00000.gz", w.Blocks()); err != nil {
		log.Fatal(err)
	}

	// Look up every capture of com,example)/about: read the summary, find the
	// blocks, range-read them and keep the lines in the key range.
	idx, err := zipnum.ReadSummary(&summary)
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range idx {
		fmt.Println(l.FirstKey, l.Part, l.Number)
	}
	start, end := "com,example)/about ", "com,example)/about!"
	first, last := zipnum.Search(len(idx), func(i int) string { return idx[i].FirstKey }, start, end)
	fmt.Printf("blocks [%d, %d)\n", first, last)
	off, n := idx[first].Offset, idx[last-1].Offset+idx[last-1].Length-idx[first].Offset
	r := zipnum.NewBlockReader(io.NewSectionReader(bytes.NewReader(blocksFile.Bytes()), off, n))
	for {
		line, err := r.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		if s := string(line); s >= start && s < end {
			os.Stdout.Write(append(line, '\n'))
		}
	}
	// Output:
	// com,example)/ 20240101000000 cdx-00000.gz 1
	// com,example)/about 20240101000000 cdx-00000.gz 2
	// org,example)/ 20240303000000 cdx-00000.gz 3
	// blocks [0, 2)
	// com,example)/about 20240101000000 {"url": "https://example.com/about"}
}
