from django import template

register = template.Library()


@register.filter
def get_letter(letters: dict, party_id) -> str:
    """The letter a party holds in a row's {party id: letter} map, or ''."""
    return letters.get(party_id, "")
