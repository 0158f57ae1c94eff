package urldb

import "strings"

// compact lays the domain's records out in a few large blocks instead of several
// small objects each: the records in one array, every path in one string, every
// digest in one byte slice, and each distinct content type and category list once.
// The records and their values do not change. A garbage collector's mark then visits
// a handful of objects per domain where it visited four or five per record; in
// WebAssembly the mark runs on the program's only thread and the browser's event
// loop waits for it, so a database of hundreds of thousands of records would
// otherwise hold the extension's API up for a second or more at each collection.
//
// Slices shared between records have their capacity equal to their length, so
// appending to one (AddCategory) copies it and leaves the others as they are.
func (d *Domain) compact() {
	if len(d.Records) == 0 {
		return
	}
	var paths strings.Builder
	digests := 0
	for _, r := range d.Records {
		paths.WriteString(r.Path)
		digests += len(r.ContentSHA256)
	}
	allPaths := paths.String()
	allDigests := make([]byte, 0, digests)
	types := map[string]string{}
	categories := map[string][]string{}
	records := make([]Record, len(d.Records))
	at := 0
	for i, r := range d.Records {
		c := *r
		c.Path = allPaths[at : at+len(r.Path)]
		at += len(r.Path)
		if c.ContentSHA256 != nil {
			n := len(allDigests)
			allDigests = append(allDigests, c.ContentSHA256...)
			c.ContentSHA256 = allDigests[n:len(allDigests):len(allDigests)]
		}
		if t, ok := types[c.ContentType]; ok {
			c.ContentType = t
		} else {
			types[c.ContentType] = c.ContentType
		}
		if len(c.Categories) > 0 {
			key := strings.Join(c.Categories, "\n")
			if list, ok := categories[key]; ok {
				c.Categories = list
			} else {
				c.Categories = c.Categories[:len(c.Categories):len(c.Categories)]
				categories[key] = c.Categories
			}
		}
		records[i] = c
		d.Records[i] = &records[i]
	}
}
