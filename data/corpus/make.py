#!/usr/bin/env python3
"""Builds the simdex sample corpus: public-domain originals plus near-duplicates of known provenance.

Deterministic: the same sources and --seed give byte-identical outputs (gzip with mtime 0).
See data/corpus/README.md for where the sources come from and how to run this.

Outputs (in --out):
  docs.jsonl.gz   {"id": N, "text": "..."} one document a line, ids 0..N-1 in shuffled order
  truth.tsv       ID_A<TAB>ID_B<TAB>KIND, ID_A < ID_B: the pairs that are near-duplicates
  meta.tsv        ID<TAB>LANG<TAB>ORIGIN<TAB>SOURCE: what each document is and where it comes from
"""
import argparse
import glob
import gzip
import json
import os
import random
import re
import unicodedata

# ---------------------------------------------------------------- sources


def read_kjv(path):
    """`bible -f gen1:1-rev22:21` output: 'Ge1:1 In the beginning ...' one verse a line."""
    verses = []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^(\d?[A-Za-z]+)(\d+):(\d+) (.*)$", line.rstrip("\n"))
        if m:
            verses.append((f"{m[1]}{m[2]}", f"{m[1]}{m[2]}:{m[3]}", m[4].strip()))
    return verses


def read_rv1909(path):
    """`diatheke -b spaRV1909eb -f plain -k 'Gen 1:1 - Rev 22:21'`: 'Genesis 1:1: EN el ...'."""
    verses = []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^(.+?) (\d+):(\d+): (.*)$", line.rstrip("\n"))
        if m:
            text = re.sub(r"<[^>]*>", "", m[4])  # leftover Strong's numbers such as <G5547>
            text = re.sub(r"\s+", " ", text).strip()
            if text:
                verses.append((f"{m[1]} {m[2]}", f"{m[1]} {m[2]}:{m[3]}", text))
    return verses


def passages(verses, size):
    """Consecutive runs of up to `size` verses of one chapter, as (ref, [verse texts])."""
    out, run = [], []
    for i, (chapter, ref, text) in enumerate(verses):
        run.append((ref, text))
        last = i + 1 == len(verses) or verses[i + 1][0] != chapter
        if len(run) == size or last:
            if len(run) >= 4:
                out.append((f"{run[0][0]}-{run[-1][0]}", [t for _, t in run]))
            run = []
    return out


def read_tang(dist):
    """chinese-poetry dist/quantangshi/poet.tang.*.json: title, author, lines."""
    poems = []
    for path in sorted(glob.glob(os.path.join(dist, "quantangshi", "poet.tang.*.json")),
                       key=lambda p: int(p.split(".")[-2])):
        for i, p in enumerate(json.load(open(path, encoding="utf-8"))):
            lines = [l for l in p["paragraphs"] if l.strip()]
            body = "".join(lines)
            if 100 <= len(body) <= 600 and "□" not in body:  # □ marks lost characters
                ref = f"quantangshi/{os.path.basename(path)}#{i}"
                poems.append((ref, p["title"], p["author"], lines))
    return poems


def read_lunyu(dist):
    out = []
    for c in json.load(open(os.path.join(dist, "lunyu", "lunyu.json"), encoding="utf-8")):
        for i, para in enumerate(c["paragraphs"]):
            if len(para) >= 80:
                units = [u for u in re.split(r"(?<=[。！？])", para) if u]
                out.append((f"lunyu/{c['chapter']}#{i}", units))
    return out


# ---------------------------------------------------------------- documents
# A document is a list of paragraphs, each a list of units (verses, poem lines, sentences), plus an
# optional header and footer. `sep` joins units ("" for Chinese, " " otherwise).


class Doc:
    def __init__(self, lang, source, paras, head=None):
        self.lang, self.source, self.paras, self.head = lang, source, paras, head
        self.top, self.bottom = None, None  # boilerplate

    def copy(self):
        d = Doc(self.lang, self.source, [list(p) for p in self.paras], self.head)
        d.top, d.bottom = self.top, self.bottom
        return d

    def text(self):
        sep = "" if self.lang == "zh" else " "
        blocks = [sep.join(p) for p in self.paras if p]
        if self.head:
            blocks.insert(0, self.head)
        if self.top:
            blocks.insert(0, self.top)
        if self.bottom:
            blocks.append(self.bottom)
        return "\n\n".join(blocks)

    def units(self):
        return [(i, j) for i, p in enumerate(self.paras) for j in range(len(p))]


def group(units, rng):
    """Splits units into paragraphs of 2..4 units."""
    paras, i = [], 0
    while i < len(units):
        n = rng.randint(2, 4)
        paras.append(units[i:i + n])
        i += n
    return paras


def shingles(doc):
    t = doc.text().lower()
    if doc.lang == "zh":
        t = re.sub(r"\W", "", t)
        return {t[i:i + 3] for i in range(len(t) - 2)}
    w = re.findall(r"\w+", t)
    return {" ".join(w[i:i + 3]) for i in range(len(w) - 2)}


def drop_similar(docs, limit):
    """Keeps docs in order, dropping any whose 3-shingle Jaccard with a kept one exceeds `limit`
    (parallel Bible passages, poems collected twice): the truth must list every near-duplicate."""
    kept, sets = [], []
    for d in docs:
        s = shingles(d)
        if all(len(s & o) <= limit * len(s | o) for o in sets):
            kept.append(d)
            sets.append(s)
    return kept


# ---------------------------------------------------------------- edits


def words_of(docs):
    vocab = set()
    for d in docs:
        vocab.update(re.findall(r"[^\W\d_]+", d.text()))
    return sorted(vocab)


def edit_words(doc, rng, rate, vocab):
    """Replaces about `rate` of the words (Chinese: characters) with random ones of the language."""
    for i, p in enumerate(doc.paras):
        for j, u in enumerate(p):
            if doc.lang == "zh":
                chars = list(u)
                for k, ch in enumerate(chars):
                    if unicodedata.category(ch).startswith("L") and rng.random() < rate:
                        chars[k] = rng.choice(vocab)
                p[j] = "".join(chars)
            else:
                ws = u.split(" ")
                for k, w in enumerate(ws):
                    if rng.random() < rate:
                        ws[k] = rng.choice(vocab)
                p[j] = " ".join(ws)
    return f"edit {rate:.0%}"


def typos(doc, rng, rate, _vocab):
    """Swaps, drops or doubles a letter in about `rate` of the words."""
    for p in doc.paras:
        for j, u in enumerate(p):
            ws = u.split(" ")
            for k, w in enumerate(ws):
                if len(w) >= 3 and rng.random() < rate:
                    c = rng.randrange(len(w) - 1)
                    op = rng.randrange(3)
                    if op == 0:
                        w = w[:c] + w[c + 1] + w[c] + w[c + 2:]
                    elif op == 1:
                        w = w[:c] + w[c + 1:]
                    else:
                        w = w[:c] + w[c] + w[c:]
                    ws[k] = w
            p[j] = " ".join(ws)
    return f"typos {rate:.0%}"


def insert_units(doc, rng, donors):
    donor = rng.choice(donors)
    n = rng.randint(1, 2)
    units = [u for p in donor.paras for u in p]
    start = rng.randrange(max(1, len(units) - n + 1))
    i = rng.randrange(len(doc.paras))
    j = rng.randint(0, len(doc.paras[i]))
    doc.paras[i][j:j] = units[start:start + n]
    return f"insert {n} from {donor.source}"


def delete_unit(doc, rng):
    cands = doc.units()
    if len(cands) < 5:
        return None
    i, j = rng.choice(cands)
    del doc.paras[i][j]
    return "delete 1"


def reorder(doc, rng):
    if len(doc.paras) >= 2:
        a, b = rng.sample(range(len(doc.paras)), 2)
        doc.paras[a], doc.paras[b] = doc.paras[b], doc.paras[a]
        return "swap paragraphs"
    p = doc.paras[0]
    if len(p) < 2:
        return None
    a, b = rng.sample(range(len(p)), 2)
    p[a], p[b] = p[b], p[a]
    return "swap units"


BOILER = {
    "en": [("Sample Corpus Edition. Page {n} of {m}. Printed for study; not for sale.",
            "End of page {n}. Visit the reading room for more texts."),
           ("[Archive copy {n}] Retrieved from the public library collection.",
            "Share this passage with a friend. Reference number {n}-{m}."),
           ("Daily Reading No. {n}", "Previous | Next | Contents (section {m})")],
    "es": [("Edición de muestra. Página {n} de {m}. Texto de dominio público.",
            "Fin de la página {n}. Más textos en la sala de lectura."),
           ("[Copia de archivo {n}] Tomado de la colección de la biblioteca pública.",
            "Comparta este pasaje. Número de referencia {n}-{m}."),
           ("Lectura diaria n.º {n}", "Anterior | Siguiente | Índice (sección {m})")],
    "zh": [("樣本語料 第{n}頁 共{m}頁 僅供研究", "第{n}頁完 更多文本請見閱覽室"),
           ("【檔案副本 {n}】 錄自公共圖書館藏本", "歡迎分享 編號{n}-{m}"),
           ("每日一讀 第{n}期", "上一篇 下一篇 目錄 第{m}節")],
}


def boilerplate(doc, rng):
    top, bottom = rng.choice(BOILER[doc.lang])
    n, m = rng.randint(1, 400), rng.randint(400, 900)
    what = rng.randrange(3)
    if what != 1:
        doc.top = top.format(n=n, m=m)
    if what != 0:
        doc.bottom = bottom.format(n=n, m=m)
    return ["header", "footer", "header+footer"][what]


def reformat(doc, rng):
    """Changes only what normalization and segmentation discard: case, spacing, width, punctuation."""
    if doc.lang == "zh":
        table = str.maketrans({"，": ",", "。": ".", "！": "!", "？": "?", "：": ":", "；": ";"})
        for p in doc.paras:
            for j, u in enumerate(p):
                p[j] = u.translate(table)
        return "halfwidth punctuation"
    kind = rng.randrange(3)
    for p in doc.paras:
        for j, u in enumerate(p):
            if kind == 0:
                p[j] = u.upper()
            elif kind == 1:
                p[j] = re.sub(" ", lambda _: rng.choice([" ", "  ", "\n", " \t"]), u)
            else:
                p[j] = unicodedata.normalize("NFD", u).replace(";", " ;").replace(",", " ,")
    return ["uppercase", "whitespace", "NFD + spaced punctuation"][kind]


def make_variant(orig, rng, kind, vocab, donors):
    d = orig.copy()
    notes = []
    if kind == "exact":
        return d, ["exact copy"]
    if kind == "mixed":
        ops = rng.sample(["edit", "insert", "delete", "reorder", "boilerplate"], 2)
    else:
        ops = [kind]
    for op in ops:
        if op == "edit":
            notes.append(edit_words(d, rng, rng.choice([0.01, 0.02, 0.03, 0.05, 0.08]), vocab))
        elif op == "typos":
            notes.append(typos(d, rng, rng.choice([0.02, 0.05, 0.1]), vocab))
        elif op == "insert":
            notes.append(insert_units(d, rng, donors))
        elif op == "delete":
            notes.append(delete_unit(d, rng) or edit_words(d, rng, 0.02, vocab))
        elif op == "reorder":
            notes.append(reorder(d, rng) or edit_words(d, rng, 0.02, vocab))
        elif op == "boilerplate":
            notes.append(boilerplate(d, rng))
        elif op == "reformat":
            notes.append(reformat(d, rng))
    return d, notes


KINDS = [("edit", 25), ("typos", 10), ("insert", 12), ("delete", 12), ("reorder", 10),
         ("boilerplate", 12), ("reformat", 6), ("exact", 3), ("mixed", 10)]


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kjv", required=True, help="KJV text from `bible -f gen1:1-rev22:21`")
    ap.add_argument("--rv1909", required=True, help="Reina-Valera 1909 text from diatheke")
    ap.add_argument("--chinese-poetry", required=True, help="the npm package's dist/ directory")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--seed", type=int, default=2007)
    ap.add_argument("--en", type=int, default=900)
    ap.add_argument("--es", type=int, default=600)
    ap.add_argument("--zh", type=int, default=600)
    ap.add_argument("--variants", type=int, default=900)
    a = ap.parse_args()
    rng = random.Random(a.seed)

    originals = {}
    for lang, verses, n in (("en", read_kjv(a.kjv), a.en), ("es", read_rv1909(a.rv1909), a.es)):
        ps = passages(verses, 10)
        rng.shuffle(ps)
        label = "KJV" if lang == "en" else "RV1909"
        docs = [Doc(lang, f"{label} {ref}", group(units, rng)) for ref, units in ps[: n * 2]]
        originals[lang] = drop_similar(docs, 0.1)[:n]
    poems = read_tang(a.chinese_poetry)
    rng.shuffle(poems)
    lunyu = read_lunyu(a.chinese_poetry)
    zh = [Doc("zh", ref, [list(lines)], head=f"{title}\n{author}") for ref, title, author, lines in poems[: a.zh * 2]]
    zh = [Doc("zh", ref, group(units, rng)) for ref, units in lunyu] + zh
    originals["zh"] = drop_similar(zh, 0.1)[: a.zh]

    all_orig = [d for lang in ("en", "es", "zh") for d in originals[lang]]
    vocab = {lang: words_of(originals[lang]) if lang != "zh" else
             sorted({c for d in originals[lang] for c in d.text() if unicodedata.category(c) == "Lo"})
             for lang in originals}

    # Variants: originals drawn with replacement, so some get several (their variants are siblings).
    entries = [(d, None, "original") for d in all_orig]  # (doc, index of original, notes)
    kinds, weights = zip(*KINDS)
    for _ in range(a.variants):
        oi = rng.randrange(len(all_orig))
        orig = all_orig[oi]
        kind = rng.choices(kinds, weights)[0]
        donors = [d for d in originals[orig.lang] if d is not orig]
        v, notes = make_variant(orig, rng, kind, vocab[orig.lang], donors)
        entries.append((v, oi, kind + ": " + "; ".join(notes)))

    order = list(range(len(entries)))
    rng.shuffle(order)
    new_id = {old: new for new, old in enumerate(order)}

    truth = set()
    by_orig = {}
    for old, (doc, oi, notes) in enumerate(entries):
        if oi is None:
            continue
        kind = notes.split(":")[0]
        truth.add((new_id[oi], new_id[old], kind))
        by_orig.setdefault(oi, []).append(old)
    for oi, vs in by_orig.items():
        for x in range(len(vs)):
            for y in range(x + 1, len(vs)):
                truth.add((new_id[vs[x]], new_id[vs[y]], "sibling"))
    truth = sorted((min(p, q), max(p, q), k) for p, q, k in truth)

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "docs.jsonl.gz"), "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            for new, old in enumerate(order):
                line = json.dumps({"id": new, "text": entries[old][0].text()}, ensure_ascii=False)
                gz.write((line + "\n").encode("utf-8"))
    with open(os.path.join(a.out, "truth.tsv"), "w", encoding="utf-8") as f:
        f.write("# ID_A\tID_B\tKIND: near-duplicate pairs of docs.jsonl.gz, made by make.py\n")
        for p, q, k in truth:
            f.write(f"{p}\t{q}\t{k}\n")
    with open(os.path.join(a.out, "meta.tsv"), "w", encoding="utf-8") as f:
        f.write("# ID\tLANG\tORIGIN\tSOURCE\n")
        for new, old in enumerate(order):
            doc, oi, notes = entries[old]
            origin = "original" if oi is None else f"variant of {new_id[oi]} ({notes})"
            f.write(f"{new}\t{doc.lang}\t{origin}\t{doc.source}\n")
    counts = {lang: len(v) for lang, v in originals.items()}
    print(f"{len(entries)} documents ({counts}, {a.variants} variants), {len(truth)} truth pairs")


if __name__ == "__main__":
    main()
