package recorder

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
)

// LoadedResource is what Network.loadNetworkResource gave.
type LoadedResource struct {
	Status int               // 0 if no response came
	Header map[string]string // the response's header
	Body   []byte
	Err    error // the first problem
}

// LoadResource fetches a URL through a tab's network stack, as one of its frames
// (Network.loadNetworkResource): the page does not see the request and no host
// permission is needed. At most limit bytes of the body are read.
func LoadResource(ctx context.Context, b Browser, t Target, frameID, rawURL string, credentials bool, limit int) LoadedResource {
	out, handle := openResource(ctx, b, t, frameID, rawURL, credentials)
	if out.Err != nil {
		return out
	}
	var buf bytes.Buffer
	_, out.Err = copyStream(ctx, b, t, handle, &buf, int64(limit))
	out.Body = buf.Bytes()
	return out
}

// openResource asks for a URL as LoadResource does, and returns the status and header
// of the answer and the handle of the DevTools IO stream of its body, to be read to
// its end and closed (copyStream). A failed request has no stream.
func openResource(ctx context.Context, b Browser, t Target, frameID, rawURL string, credentials bool) (LoadedResource, string) {
	var out LoadedResource
	res, err := b.Send(ctx, t, "Network.loadNetworkResource", map[string]any{
		"frameId": frameID, "url": rawURL,
		"options": map[string]any{"disableCache": true, "includeCredentials": credentials},
	})
	if err != nil {
		out.Err = err
		return out, ""
	}
	var r struct {
		Resource struct {
			Success        bool              `json:"success"`
			NetErrorName   string            `json:"netErrorName"`
			HTTPStatusCode int               `json:"httpStatusCode"`
			Stream         string            `json:"stream"`
			Headers        map[string]string `json:"headers"`
		} `json:"resource"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		out.Err = fmt.Errorf("Network.loadNetworkResource: %w", err)
		return out, ""
	}
	out.Status, out.Header = r.Resource.HTTPStatusCode, r.Resource.Headers
	if !r.Resource.Success {
		if r.Resource.Stream != "" {
			b.Send(ctx, t, "IO.close", map[string]any{"handle": r.Resource.Stream})
		}
		out.Err = fmt.Errorf("Network.loadNetworkResource: %s", r.Resource.NetErrorName)
		return out, ""
	}
	return out, r.Resource.Stream
}

// ioReadSize is the most of a DevTools IO stream asked for at a time.
const ioReadSize = 1 << 20

// copyStream reads a DevTools IO stream to its end, or to limit bytes if limit is not
// negative, writes what it read to w, and closes the stream. The browser gives the
// data as it is asked for it, so memory stays flat whatever the stream's length.
func copyStream(ctx context.Context, b Browser, t Target, handle string, w io.Writer, limit int64) (int64, error) {
	if handle == "" {
		return 0, nil
	}
	defer b.Send(ctx, t, "IO.close", map[string]any{"handle": handle})
	var n int64
	for limit < 0 || n < limit {
		res, err := b.Send(ctx, t, "IO.read", map[string]any{"handle": handle, "size": ioReadSize})
		if err != nil {
			return n, err
		}
		var chunk struct {
			Base64Encoded bool   `json:"base64Encoded"`
			Data          string `json:"data"`
			EOF           bool   `json:"eof"`
		}
		if err := json.Unmarshal(res, &chunk); err != nil {
			return n, fmt.Errorf("IO.read: %w", err)
		}
		p := []byte(chunk.Data)
		if chunk.Base64Encoded {
			if p, err = base64.StdEncoding.DecodeString(chunk.Data); err != nil {
				return n, fmt.Errorf("IO.read: %w", err)
			}
		}
		if limit >= 0 && n+int64(len(p)) > limit {
			p = p[:limit-n]
		}
		k, err := w.Write(p)
		n += int64(k)
		if err != nil {
			return n, err
		}
		if chunk.EOF {
			break
		}
	}
	return n, nil
}
