"""poc's part of the demo (common.demo): the POC plan, test beds, declarations, scores and
consensus, and the decision they lead to (step.py), from data.yaml and the texts en.yaml /
zh-hans.yaml."""

from pathlib import Path

from common.demo import DemoFiles

FILES = DemoFiles(Path(__file__).resolve().parent)
