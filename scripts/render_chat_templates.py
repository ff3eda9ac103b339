#!/usr/bin/env python3
"""Expected outputs of chat templates, rendered by transformers' own apply_chat_template.

Reads a rows file (JSONL, one {"key": ..., "row": {"messages": [...], "tools": [...] | null}}
per line: the OpenAI-style rows midpack passes to a chat template, as written by
scripts/build-chat-template-rows.ts) and renders every row with every .jinja template of a
folder, with what midpack passes: tools, add_generation_prompt=False, the bos/eos tokens of
settings.json, and strftime_now answering for midpack's fixed date (26 July 2024). A template
listed with "json_arguments" gets each call's arguments as json.dumps(arguments,
ensure_ascii=False), as its users pass them. Writes {template: {key: {"sha256", "bytes"[, "text"]}
or {"error": message}}}: the full text for keys starting with --text-prefix, a hash for the rest.

  pip install transformers jinja2   (no torch needed)
  python3 scripts/render_chat_templates.py ROWS --templates DIR --settings settings.json --out expected.json
"""
import argparse
import copy
import datetime
import hashlib
import json
import os
import sys

from transformers import PreTrainedTokenizerFast

def with_json_arguments(row):
    row = copy.deepcopy(row)
    for m in row["messages"]:
        for c in m.get("tool_calls") or []:
            c["function"]["arguments"] = json.dumps(c["function"]["arguments"], ensure_ascii=False)
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("--templates", required=True)
    ap.add_argument("--settings", required=True)
    ap.add_argument("--tokenizer", required=True, help="a tokenizer.json with no special-token settings (midpack's Qwen3)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--text-prefix", default="stress")
    ap.add_argument("--date", default="2024-07-26", help="the date strftime_now answers for (midpack's --template-date)")
    a = ap.parse_args()
    date = datetime.datetime.strptime(a.date, "%Y-%m-%d")
    settings = json.load(open(a.settings, encoding="utf-8"))
    rows = [json.loads(line) for line in open(a.rows, encoding="utf-8") if line.strip()]
    tok = PreTrainedTokenizerFast(tokenizer_file=a.tokenizer)
    out = {}
    for name in sorted(n for n in os.listdir(a.templates) if n.endswith(".jinja")):
        template = open(os.path.join(a.templates, name), encoding="utf-8").read()
        s = settings.get(name, {})
        kwargs = {k: s[k] for k in ("bos_token", "eos_token") if k in s}
        results = {}
        for r in rows:
            row = with_json_arguments(r["row"]) if s.get("json_arguments") else r["row"]
            try:
                text = tok.apply_chat_template(
                    row["messages"], tools=row["tools"], tokenize=False, add_generation_prompt=False,
                    chat_template=template, strftime_now=lambda f: date.strftime(f), **kwargs)
            except Exception as e:  # the template's own raise_exception, or a Jinja error
                results[r["key"]] = {"error": str(e)}
                continue
            b = text.encode("utf-8")
            res = {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}
            if r["key"].startswith(a.text_prefix):
                res["text"] = text
            results[r["key"]] = res
        out[name] = results
        errors = sum(1 for x in results.values() if "error" in x)
        print(f"{name}: {len(results) - errors} rendered, {errors} raised", file=sys.stderr)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
