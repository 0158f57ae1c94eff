package cdx

import "errors"

// ErrAMF is returned for an application/x-amf body that cannot be decoded.
var ErrAMF = errors.New("cdx: invalid AMF body")

func amfQuery(body []byte) (string, error) { return "", ErrAMF }
