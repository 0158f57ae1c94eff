package main

// The pages autopilot is shown on: a feed that loads 10 more items each time its end
// scrolls into view (feedTotal in all, each with a lazy image offering three sizes by
// srcset), a page with a "load more" button and a closed <details>, and a page with a
// video that loads nothing until it is played. Each has a form and a link away, and
// buttons that delete or log out: what autopilot must never click.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// feedTotal is the feed's items; feedPage how many it loads at a time.
const (
	feedTotal = 60
	feedPage  = 10
	// moreTotal is the items of the "load more" page; morePage how many a click adds.
	moreTotal = 20
	morePage  = 5
)

// feedWidths are the sizes each feed image offers in its srcset.
var feedWidths = []int{200, 400, 800}

// addFeed serves the feed and the "load more" page.
func (s *site) addFeed() {
	s.mux.HandleFunc("GET /feed", s.page(feedHTML()))
	s.mux.HandleFunc("GET /feed/items", func(w http.ResponseWriter, r *http.Request) {
		page, err := strconv.Atoi(r.URL.Query().Get("page"))
		if err != nil || page < 0 || page*feedPage >= feedTotal {
			http.Error(w, "no such page", http.StatusNotFound)
			return
		}
		type item struct {
			N      int    `json:"n"`
			Text   string `json:"text"`
			Src    string `json:"src"`
			Srcset string `json:"srcset"`
		}
		var items []item
		for n := page*feedPage + 1; n <= min(feedTotal, (page+1)*feedPage); n++ {
			items = append(items, item{n, itemText(n), feedImage(n, feedWidths[0]), feedSrcset(n)})
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(map[string]any{"items": items, "last": (page+1)*feedPage >= feedTotal})
	})
	s.mux.HandleFunc("GET /feed/img/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		width, err := strconv.Atoi(r.URL.Query().Get("w"))
		if err != nil || width <= 0 || width > 2000 {
			width = 200
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"><rect width="100%%" height="100%%" fill="hsl(%d,60%%,70%%)"/><text x="10" y="30" font-size="20">item %d, %d px</text></svg>`,
			width, width/2, n*37%360, n, width)
	})
	s.mux.HandleFunc("GET /feed/elsewhere", s.page(elsewhereHTML))
	s.mux.HandleFunc("POST /submit/feed", s.echo)
	s.mux.HandleFunc("GET /more", s.page(moreHTML))
	s.mux.HandleFunc("GET /more/items", func(w http.ResponseWriter, r *http.Request) {
		from, err := strconv.Atoi(r.URL.Query().Get("from"))
		if err != nil || from < 0 || from >= moreTotal {
			http.Error(w, "no such items", http.StatusNotFound)
			return
		}
		var items []string
		for n := from + 1; n <= min(moreTotal, from+morePage); n++ {
			items = append(items, fmt.Sprintf("Entry %d", n))
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(map[string]any{"items": items, "last": from+morePage >= moreTotal})
	})
}

// itemText is the text of feed item n.
func itemText(n int) string {
	return fmt.Sprintf("Feed item %d: what a reader scrolling this far would see.", n)
}

// feedImage is the address of feed item n's image at a width; feedSrcset its srcset.
func feedImage(n, width int) string { return fmt.Sprintf("/feed/img/%d?w=%d", n, width) }

func feedSrcset(n int) string {
	s := ""
	for i, w := range feedWidths {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %dw", feedImage(n, w), w)
	}
	return s
}

// feedHTML is the feed with its first feedPage items.
func feedHTML() string {
	items := ""
	for n := 1; n <= feedPage; n++ {
		items += fmt.Sprintf(`<article id="item-%d"><h2>Item %d</h2><p>%s</p><img loading="lazy" src="%s" srcset="%s" sizes="200px" width="200" height="100" alt="item %d"></article>
`, n, n, itemText(n), feedImage(n, feedWidths[0]), feedSrcset(n), n)
	}
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Feed</title>
<link rel="stylesheet" href="/static/style.css">
<style>article { min-height: 160px; border-bottom: 1px solid #ccc; }</style></head>
<body><h1>Feed</h1>
<p>More items load as you scroll to the end.</p>
<form id="feed-form" action="/submit/feed" method="post"><input name="q" value="autopilot"> <button id="feed-submit" type="submit">Load more</button></form>
<p><a id="feed-away" href="/feed/elsewhere">More</a> · <button id="feed-delete" type="button">Delete all</button> · <button id="feed-logout" type="button">Log out</button></p>
<div id="feed" data-total="` + strconv.Itoa(feedTotal) + `">
` + items + `</div>
<p id="feed-end">Loading more…</p>
<script>
(() => {
  const feed = document.getElementById("feed");
  const end = document.getElementById("feed-end");
  let page = 1, loading = false, last = false;
  const more = async () => {
    if (loading || last) return;
    loading = true;
    const r = await (await fetch("/feed/items?page=" + page)).json();
    for (const it of r.items) {
      const a = document.createElement("article");
      a.id = "item-" + it.n;
      a.innerHTML = "<h2>Item " + it.n + "</h2><p></p><img loading=lazy sizes=200px width=200 height=100>";
      a.querySelector("p").textContent = it.text;
      const img = a.querySelector("img");
      img.alt = "item " + it.n;
      img.srcset = it.srcset;
      img.src = it.src;
      feed.append(a);
    }
    page++;
    last = r.last;
    loading = false;
    if (last) { end.textContent = "The end."; end.dataset.done = "true"; seen.disconnect(); return; }
    // Observed afresh, the end is reported as it now is: still in view, the next page
    // loads. (A reader who scrolled back to the end before the next frame leaves its
    // state "intersecting" unchanged, and a plain observer would never call again.)
    seen.unobserve(end);
    seen.observe(end);
  };
  const seen = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) more(); });
  seen.observe(end);
  for (const [id, method, path] of [["feed-delete", "DELETE", "/api/item/all"], ["feed-logout", "POST", "/api/json"]]) {
    document.getElementById(id).onclick = () => fetch(path, { method });
  }
})();
</script>
</body></html>
`
}

const elsewhereHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Elsewhere</title></head>
<body><h1>Another page</h1><p>Autopilot never comes here from the feed.</p></body></html>
`

// moreHTML has a "load more" button that adds morePage entries a click, up to
// moreTotal, and a closed <details> with a lazy image.
const moreHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Load more</title>
<link rel="stylesheet" href="/static/style.css"></head>
<body><h1>Load more</h1>
<ul id="entries"><li>Entry 1</li><li>Entry 2</li><li>Entry 3</li><li>Entry 4</li><li>Entry 5</li></ul>
<p><button id="load-more" type="button">Load more</button> <button id="remove-all" type="button">Remove all</button></p>
<form action="/submit/feed" method="post"><button id="more-submit">Show more</button></form>
<details id="more-details"><summary>Details</summary><img loading="lazy" src="/feed/img/999?w=100" width="100" height="50" alt="detail"></details>
<script>
(() => {
  const list = document.getElementById("entries");
  const button = document.getElementById("load-more");
  button.onclick = async () => {
    const r = await (await fetch("/more/items?from=" + list.children.length)).json();
    for (const t of r.items) {
      const li = document.createElement("li");
      li.textContent = t;
      list.append(li);
    }
    if (r.last) { button.remove(); list.dataset.done = "true"; }
  };
  document.getElementById("remove-all").onclick = () => fetch("/api/item/all", { method: "DELETE" });
})();
</script>
</body></html>
`

// watchHTML shows the video of -video, loading none of it until it is played.
const watchHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Watch</title></head>
<body><h1>A video, loaded when played</h1>
<video id="video" src="/media/video.webm" controls muted preload="none" width="320" height="240"></video>
</body></html>
`
