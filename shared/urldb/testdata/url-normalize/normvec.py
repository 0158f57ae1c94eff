# Oracle: wwturldb's Database.normalize path (wwt_url_database/__init__.py) with
# url-normalize 1.4.3, Python 3.11.7. Prints: case-sensitive<TAB>url<TAB>result
from urllib import parse
from url_normalize import url_normalize
def wwt(url, cs):
    info = parse.urlsplit(url)
    p = info.path
    if not cs: p = p.lower()
    p = parse.SplitResult('', '', p, info.query, '').geturl()
    return url_normalize(p)
paths = ["/", "/a/b", "/a//b", "/a/./b/../c", "/a/b/..", "/a/b/.", "/..", "/../a", "/a/..b", "/a/.b", "/%7ejane", "/%7Ejane", "/~x",
 "/a%20b", "/a b", "/a%2Fb", "/a%2fb", "/%41%42", "/%e2%82%ac", "/%E2%82", "/%E2%82%41", "/%ff%fe", "/%C7", "/%ED%A0%80", "/%F0%9F%98%80", "/%F4%90%80%80", "/%",
 "/%zz", "/%4", "/€", "/caf%C3%A9", "/a:b", "/a;b=c", "/a@b", "/a!$&'()*+,;=b", "/a[b]", "/a{b}", "/a|b", "/a^b", "/a\"b", "/a<b>", "/a`b", "/a%23b", "/a%3Fb",
 "/Foo/BAR", "/Foo%7E", "/x?b=2&a=1", "/x?a=1&b", "/x?b&a", "/x?", "/x?&", "/x?a=1&", "/x? ", "/x?a=b=c", "/x?a=%7e", "/x?a=%2F&b=%26", "/x?a=+b", "/x?a=b c",
 "/x?utm_source=z", "/x?a=1&utm_source=z&b=2", "/x?utm_source=z&a=1", "/utm_source=abc/x", "/x?xutm_source=1&y=2", "/x?a=%C3%A9", "/x?a=é", "/x?q=%5c", "/x?q=%C7",
 "/x?B=1&a=2", "/x?a=2&a=1", "/x?=1", "/x?a==", "/x?a;b", "/x?a=[1]", "/x?a=#", "/x#frag", "/x?a=1#frag", "/v2/gh/x/master?urlpath=lab/tree/NASA%20Exoplanet%25Archive.ipynb",
 "/x/", "/x/ ", "/ x", "/x%20", "/x?a= ", "/a/b/../../..", "/a/./", "/./", "/.", "/A%2e%2E/b", "/%2e%2e/b", "/x?a=%", "/x?%zz=1"]
for cs in (True, False):
    for p in paths:
        for url in ("http://example.com" + p, "https://www.example.com" + p):
            if not cs and url.startswith("https"): continue
            print("%s\t%s\t%s" % ("cs" if cs else "ci", url, wwt(url, cs)))
