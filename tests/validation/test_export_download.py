"""The admin downloads the per-criterion export from the web, as `study export` writes it."""

import csv
import io
import json

import pytest
from django.core.management import call_command

from tests.builders.accounts import ExpertFactory
from tests.builders.studies import open_study, rate

pytestmark = pytest.mark.django_db


def test_staff_download_the_export_the_command_line_writes(admin_client):
    experts = [ExpertFactory() for _ in range(3)]
    study = open_study(cases=2, experts=experts, name="共情研究-2")
    for expert in experts:
        rate(expert, study)
        rate(expert, study)  # both units, so that every row has gold
    cli = io.StringIO()
    call_command("study", "export", study.name, "--format", "csv", stdout=cli)

    response = admin_client.get(f"/admin/studies/{study.name}/export/")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="study-export-')
    web = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert web == list(csv.DictReader(io.StringIO(cli.getvalue())))
    assert len(web) > 0 and all(row["gold"] != "" for row in web)

    lines = (
        admin_client.get(f"/admin/studies/{study.name}/export/", {"format": "jsonl"})
        .content.decode()
        .splitlines()
    )
    assert len(lines) == len(web) and json.loads(lines[0])


def test_experts_cannot_download_and_unknown_formats_are_404(client, admin_client):
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    client.force_login(expert.user)
    assert client.get("/admin/studies/study-a/export/").status_code == 302  # to the admin login
    assert admin_client.get("/admin/studies/study-a/export/?format=xlsx").status_code == 404
    assert admin_client.get("/admin/studies/none/export/").status_code == 404
