"""Veiled's game flow: orders are read against the player's own units alone, so a refusal
never says whose unit stands where (the standard reading says "it is GERMANY's")."""

from judge.games.flow import GameFlow
from judge.games.game import order_entry

REFUSAL = "you have no unit that can take this order"


class VeiledFlow(GameFlow):
    hidden = True

    def read_lines(self, variant, pos, power, texts):
        own = pos.following(pos.units_of(power),
                            dislodged=[d for d in pos.dislodged if d.unit.power == power])
        out = []
        for line in variant.read_orders(own, power, texts):
            if line.order is None:
                out.append({"text": line.text, "order": None, "data": None, "unit": None,
                            "error": REFUSAL})
            else:
                unit = line.order.unit.location.split("/")[0]
                out.append(order_entry(variant, line.text, line.order, unit))
        return out


FLOW = VeiledFlow()
