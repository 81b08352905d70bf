"""Finding a catalog entry in free text by its name or one of its aliases: the detail of a
context answer naming a cloud, a platform or an accelerator family."""

import re


def names_in(text: str, names: list[str]) -> bool:
    """Whether `text` contains one of `names`: as a whole word for a Latin name (so "ACK" is not
    found in "stack"), anywhere for a Chinese one."""
    for name in names:
        name = name.strip()
        if not name:
            continue
        if name.isascii():
            if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE):
                return True
        elif name in text:
            return True
    return False


def alias_list(aliases: str) -> list[str]:
    return [a.strip() for a in (aliases or "").split(",") if a.strip()]
