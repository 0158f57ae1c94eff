# Oracle: what wwturldb's Domain._rewrite writes for a domain file (Record.as_dict
# logic of wwt_url_database/__init__.py, PyYAML dump_all as it calls it).
import sys, yaml
def rewrite(text):
    docs = list(yaml.safe_load_all(text))
    meta = docs[0] if docs[0] is not None else {}
    out = [meta]
    by_path = {}
    for doc in docs[1:]:
        doc = dict(doc)
        d = {}
        path = doc.pop('_path'); ct = doc.pop('content-type')
        cl = doc.pop('content-length', None)
        sha = None
        if cl is not None:
            sha = bytes.fromhex(doc.pop('content-sha256'))
        cats = set(doc.pop('categories', ()))
        d = doc.copy()
        d['_path'] = path; d['content-type'] = ct
        if cl is not None:
            d['content-length'] = cl; d['content-sha256'] = sha.hex()
        if len(cats): d['categories'] = sorted(cats)
        by_path[path] = d
    out += [by_path[p] for p in sorted(by_path)]
    return yaml.dump_all(out, explicit_start=True, sort_keys=True)
src = sys.stdin.read()
sys.stdout.write(rewrite(src))
