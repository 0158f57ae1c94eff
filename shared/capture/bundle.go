package capture

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/urldb"
)

// Names of the files inside a bundle, besides the WARC and CDXJ named after the session.
const (
	bundlePages  = "pages.jsonl"
	bundleReport = "report.json"
)

// Report is the check report of a session, as a bundle carries it: the session, the
// URL-database verdict on every recorded response the database lists, and what each
// recorded site's data.txt and robots.txt say.
type Report = api.Report

// Report gathers the session's report.
func (s *Session) Report() (*Report, error) {
	rep := &Report{Session: s.Info(), Verdicts: []urldb.Verdict{}, Sites: []Site{}}
	v, err := s.Verdicts()
	if err != nil {
		return nil, err
	}
	sites, err := s.Sites()
	if err != nil {
		return nil, err
	}
	if v != nil {
		rep.Verdicts = v
	}
	if sites != nil {
		rep.Sites = sites
	}
	if rep.Checks, err = s.checks(); err != nil {
		return nil, err
	}
	return rep, nil
}

// SortedCDX returns the session's CDXJ index sorted as CDXJ requires (by key, then
// timestamp, then the rest of the line).
func (s *Session) SortedCDX() ([]byte, error) {
	r, err := s.CDXLines()
	if err != nil {
		return nil, err
	}
	var lines [][]byte
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("capture: session %s: reading CDX: %w", s.info.ID, err)
	}
	return sortedLines(lines), nil
}

// BaseName is the name a session's files share in a bundle and in downloads.
func (s *Session) BaseName() string { return "webkeep-" + s.info.ID }

// WriteBundle writes the session as a zip: its WARC 0.9 .warc.gz, its sorted .cdxj,
// pages.jsonl and the check report. The WARC is streamed from the store a chunk at a
// time and stored without recompression (it is gzip already).
func (s *Session) WriteBundle(w io.Writer) error {
	_, err := s.writeBundle(w, nil)
	return err
}

// writeBundle writes the bundle as WriteBundle does. With known, the payloads the
// team archive holds (an upload to it, see teamdedup.go), the responses of those
// payloads are revisit records in its WARC, and its .cdxj is that WARC's index,
// made again; without any such response, the bundle is WriteBundle's.
func (s *Session) writeBundle(w io.Writer, known map[string]teamHolder) (teamRewriteStats, error) {
	var stats teamRewriteStats
	var targets []teamTarget
	if len(known) > 0 {
		var err error
		if targets, err = s.teamTargets(known); err != nil {
			return stats, err
		}
	}
	err := s.writeZip(w, func(add func(name string, method uint16, r io.Reader) error, create func(name string) (io.Writer, error)) error {
		warcStream, err := s.WARC()
		if err != nil {
			return err
		}
		var index []byte
		if len(targets) == 0 {
			if err := add(s.BaseName()+".warc.gz", zip.Store, warcStream); err != nil {
				return err
			}
			if index, err = s.SortedCDX(); err != nil {
				return err
			}
		} else {
			f, err := create(s.BaseName() + ".warc.gz")
			if err != nil {
				return err
			}
			ix, wait := indexTeamWARC(s.BaseName() + ".warc.gz")
			stats, err = writeTeamWARC(io.MultiWriter(f, ix), warcStream, targets, known)
			// The index ends where the WARC does (cut, after a failed write: the
			// indexer is told of no error, which it would take as damage to go on
			// after).
			var ierr error
			index, ierr = wait()
			if err != nil {
				return fmt.Errorf("capture: bundle %s: %s.warc.gz: %w", s.info.ID, s.BaseName(), err)
			}
			if ierr != nil {
				return ierr
			}
		}
		return add(s.BaseName()+".cdxj", zip.Deflate, bytes.NewReader(index))
	})
	return stats, err
}

// writeZip writes the bundle's zip: warcAndIndex adds the WARC and the .cdxj (with
// add, or create for a file it writes itself), then pages.jsonl and the report follow.
func (s *Session) writeZip(w io.Writer, warcAndIndex func(add func(name string, method uint16, r io.Reader) error, create func(name string) (io.Writer, error)) error) error {
	info := s.Info()
	zw := zip.NewWriter(w)
	create := func(name string) (io.Writer, error) {
		return zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: info.Updated})
	}
	add := func(name string, method uint16, r io.Reader) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: info.Updated})
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, r); err != nil {
			return fmt.Errorf("capture: bundle %s: %s: %w", info.ID, name, err)
		}
		return nil
	}
	if err := warcAndIndex(add, create); err != nil {
		return err
	}
	pages, err := s.PageLines()
	if err != nil {
		return err
	}
	if err := add(bundlePages, zip.Deflate, pages); err != nil {
		return err
	}
	rep, err := s.Report()
	if err != nil {
		return err
	}
	report, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := add(bundleReport, zip.Deflate, bytes.NewReader(report)); err != nil {
		return err
	}
	return zw.Close()
}
