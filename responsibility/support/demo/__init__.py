"""The demo's support terms (common.demo): two candidates' commitments, one with gaps
(step.py), from data.yaml and the texts en.yaml / zh-hans.yaml."""

from pathlib import Path

from common.demo import DemoFiles

FILES = DemoFiles(Path(__file__).resolve().parent)
