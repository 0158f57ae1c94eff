package recorder

import "io"

// Store keeps values under string keys, sorted as byte strings: where a recorder
// spools the large bodies it receives. It is its owner's storage (capture.Store is this
// interface); the recorder uses keys under "spool/".
type Store interface {
	Put(key string, value []byte) error
	// Get returns an error for a missing key.
	Get(key string) ([]byte, error)
	// Keys returns the keys with the prefix, sorted.
	Keys(prefix string) ([]string, error)
	// Delete removes every key with the prefix.
	Delete(prefix string) error
}

// chunkReader reads the chunks stored under a prefix, in key order, as one stream,
// holding one chunk in memory at a time.
type chunkReader struct {
	store Store
	keys  []string
	cur   []byte
}

// OpenChunks returns the concatenation of the values under prefix, in key order, read
// one value at a time.
func OpenChunks(s Store, prefix string) (io.Reader, error) {
	keys, err := s.Keys(prefix)
	if err != nil {
		return nil, err
	}
	return &chunkReader{store: s, keys: keys}, nil
}

// Read reads the values in order, getting the next from the store once one is read.
func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if len(r.keys) == 0 {
			return 0, io.EOF
		}
		b, err := r.store.Get(r.keys[0])
		if err != nil {
			return 0, err
		}
		r.keys, r.cur = r.keys[1:], b
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}
