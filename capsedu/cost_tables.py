"""What the costs come to, as text: a CapsNet's layers side by side (``format_table``), their
shares (``format_shares``), routing's share of a step (``format_share``), the DigitCaps sweep
(``format_sweep``) and a run recorded on a GPU (``recorded_cost_line``) (notebooks 05 and 09)."""

from typing import Annotated

import torch
from pydantic import InstanceOf

from .capsnet import CapsNet, CapsNetConfig
from .costs import anatomy
from .course_settings import Name
from .routing_costs import RecordedCost, RoutingCost, RoutingShare
from .validate import Some, checked


@torch.no_grad()
@checked
def format_table(configs: dict[str, CapsNetConfig]) -> str:
    """A text table of ``anatomy`` for each named config: one line per (layer, config), totals."""
    if not configs:
        raise ValueError("format_table(): configs must name at least one CapsNetConfig, got {}; "
                         "pass e.g. {'paper': CapsNetConfig()}")
    tables = {name: anatomy(CapsNet(cfg)) for name, cfg in configs.items()}
    head = f"{'layer':<28} {'config':<8} {'output':>12} {'parameters':>11} {'MACs':>13}"
    lines = [head, "-" * len(head)]
    layers = [row.name for row in next(iter(tables.values()))]
    for k, layer in enumerate([*layers, "total"]):
        for n, (name, rows) in enumerate(tables.items()):
            if layer == "total":
                shape, params, macs = "", sum(r.parameters for r in rows), sum(r.macs for r in rows)
            else:
                row = rows[k]
                shape, params, macs = "x".join(map(str, row.output_shape)), row.parameters, row.macs
            lines.append(f"{layer if n == 0 else '':<28} {name:<8} {shape:>12} {params:>11,} "
                         f"{macs:>13,}")
        lines.append("-" * len(head))
    return "\n".join(lines[:-1])


@checked
def format_shares(name: Name, model: CapsNet) -> str:
    """What ``anatomy(model)`` adds up to, as text: one line of totals (parameters, without the
    decoder, multiply-adds per image), then one line per layer with its share of each."""
    rows = anatomy(model)
    params = sum(r.parameters for r in rows)
    macs = sum(r.macs for r in rows)
    without_decoder = params - rows[-1].parameters  # the decoder is the last row
    lines = [f"{name}: {params:,} parameters ({params / 1e6:.1f} M), "
             f"{without_decoder:,} without the decoder ({without_decoder / 1e6:.1f} M); "
             f"{macs / 1e6:.1f} M multiply-adds per image"]
    lines += [f"  {r.name:<28} {100 * r.parameters / params:5.1f} % of the parameters, "
              f"{100 * r.macs / macs:5.1f} % of the MACs" for r in rows]
    return "\n".join(lines)


@checked
def format_share(name: str, share: InstanceOf[RoutingShare]) -> str:
    """One line: routing's share of ``name``'s multiply-adds, then of its forward and backward
    time, with the milliseconds the time shares come from."""
    t = share.times  # seconds: the whole step, and routing alone on the same batch
    noisy = max(share.forward, share.backward) > 1  # a part timed longer than its whole
    return (f"{name:>6}: routing is {100 * share.macs:.1f} % of the multiply-adds, but "
            f"{100 * share.forward:.0f} % of the forward time "
            f"({1000 * t.routing_forward:.0f} of {1000 * t.forward:.0f} ms) and "
            f"{100 * share.backward:.0f} % of the backward time "
            f"({1000 * t.routing_backward:.0f} of {1000 * t.backward:.0f} ms)"
            + ("; over 100 %: timing noise (routing and the step were timed apart on a busy "
               "machine), time it again with more repeats" if noisy else ""))


@checked
def format_sweep(rows: Annotated[list[InstanceOf[RoutingCost]], Some]) -> str:
    """``routing_sweep``'s rows as a table: n_in, iterations, forward and backward milliseconds
    and the MB of the batch's u_hat."""
    lines = [f"{'n_in':>6}{'iterations':>11}{'forward ms':>12}{'backward ms':>13}{'u_hat MB':>10}"]
    lines += [f"{row.n_in:>6}{row.iterations:>11}{1000 * row.forward:>12.1f}"
              f"{1000 * row.backward:>13.1f}{row.u_hat_bytes / 2**20:>10.1f}" for row in rows]
    return "\n".join(lines)


@checked
def recorded_cost_line(run: InstanceOf[RecordedCost]) -> str:
    """A recorded run in one sentence, with its source."""
    return (f"on {run.device} ({run.command}, {run.date}), batch {run.batch}: a training step of "
            f"CapsNet(AFFNIST) takes {run.capsnet_step / run.cnn_step:.1f}x the CNN's; routing is "
            f"{100 * run.macs:.1f} % of the forward multiply-adds, {100 * run.forward:.0f} % of "
            f"the forward time and {100 * run.backward:.0f} % of the backward time")
