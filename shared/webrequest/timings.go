package webrequest

import "time"

// How long the background page waits for what it keeps for the core. It reads these
// from the core, as it reads OpenWait and LeaveCheck (wasm/core firefox.go publishes
// them in milliseconds).

// BodyWait is how long the background page waits, when the core asks for a body
// (Network.getResponseBody), for the response's filter to have passed all of it on; a
// body not whole by then is answered with an error, which the recorder marks in the
// body's records.
const BodyWait = 30 * time.Second

// Forget is how long after a request ended the background page keeps its body for the
// core to ask for; a body the core never asked for is then dropped. The core asks as
// soon as it hears that the body ended, so this is far longer than any wait of its.
const Forget = 2 * time.Minute

// KeepAlive is how often the background page calls the browser while a tab is recorded
// or an API request is being answered: Firefox suspends an idle background page after
// about 30 s, and the recorder's state with it (a 500 MB body's records took 40 s and
// more to be written once its page had it whole). Each call also looks each recorded
// tab up, so a tab gone unnoticed is reported as closed.
const KeepAlive = 20 * time.Second

// PieceWait is how long the background page waits for the next piece of a request body
// that one of the extension's pages sends in pieces (an import's upload): a body with
// no piece for that long (its page went elsewhere) fails, so the core's request never
// waits for good.
const PieceWait = time.Minute
