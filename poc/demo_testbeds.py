"""The demo evaluation's test beds (reports' `demo` command): where each candidate's POC ran.

The story: every open-source and NVIDIA-only candidate ran on the shared POC partition of four
nodes with eight NVIDIA A800 each. The enterprise platform's vendor brought its own on-site
environment on Huawei Ascend 910B, because the mixed NVIDIA and Ascend fleet is why it was
shortlisted, so its results are not directly comparable: the test-bed reminder says so."""

from __future__ import annotations

from datetime import date

from .testbeds import bed_save

A800 = {
    "accelerator_vendor": "NVIDIA",
    "accelerator_model": "A800 80GB",
    "accelerator_count": 32,
    "nodes": 4,
}

# Demo candidate key (solution slug, or "stack") -> the test bed.
TEST_BEDS = {
    "slurm": {
        **A800,
        "product_version": "Slurm 23.11.6",
        "components": "Rocky Linux 9.3\nNVIDIA driver 535.161\nCUDA 12.2\nEnroot 3.4",
        "tested_from": date(2026, 9, 7),
        "tested_to": date(2026, 9, 18),
    },
    "kubernetes-gpu": {
        **A800,
        "product_version": "Kubernetes 1.29.4",
        "components": "NVIDIA GPU Operator 23.9.2\nKueue 0.6.2\nContainerd 1.7.13",
        "tested_from": date(2026, 9, 7),
        "tested_to": date(2026, 9, 18),
    },
    "volcano": {
        **A800,
        "product_version": "Volcano 1.9.0",
        "components": "Kubernetes 1.29.4\nNVIDIA GPU Operator 23.9.2",
        "tested_from": date(2026, 9, 21),
        "tested_to": date(2026, 10, 2),
    },
    "runai": {
        **A800,
        "product_version": "Run:ai 2.17",
        "components": "Kubernetes 1.29.4\nNVIDIA GPU Operator 23.9.2",
        "tested_from": date(2026, 9, 21),
        "tested_to": date(2026, 10, 2),
    },
    "enterprise-container-platform": {
        "product_version": "4.2 (vendor build 4.2.3)",
        "components": "Kubernetes 1.28 (vendor distribution)\nCANN 7.0\nAscend device plugin 5.0",
        "accelerator_vendor": "Huawei",
        "accelerator_model": "Ascend 910B",
        "accelerator_count": 32,
        "nodes": 4,
        "tested_from": date(2026, 10, 8),
        "tested_to": date(2026, 10, 20),
        "notes": "The vendor's on-site environment: the shared A800 partition was booked out.",
    },
    "stack": {
        **A800,
        "product_version": "Volcano 1.9.0 + enterprise platform 4.2",
        "components": "Kubernetes 1.29.4\nNVIDIA GPU Operator 23.9.2",
        "tested_from": date(2026, 10, 8),
        "tested_to": date(2026, 10, 20),
    },
}


def record_demo_test_beds(lead, candidates, key) -> int:
    """Record the test bed of each candidate the demo knows (`key(candidate)` names it)."""
    saved = 0
    for candidate in candidates:
        bed = TEST_BEDS.get(key(candidate))
        if bed is not None:
            bed_save(user=lead, candidate=candidate, expected_version=0, **bed)
            saved += 1
    return saved
