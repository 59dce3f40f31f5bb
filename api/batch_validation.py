"""A Job's validation (pkg/apis/batch/validation/validation.go) with Kubernetes' messages: counts,
the completion mode and its per-index fields, podFailurePolicy, successPolicy, the selector and
the template's restartPolicy; and what an update may not change."""
from __future__ import annotations

from api import names, selectors
from api.batch import CONTROLLER_UID
from api.status import Cause
from api.times import seconds

MAX_INDEXED_PARALLELISM = 100000
MAX_RULES, MAX_EXIT_CODES, MAX_PATTERNS = 20, 255, 20
MAX_MANAGED_BY = 63
RESTART_POLICIES = '"OnFailure", "Never"'
IMMUTABLE = ("selector", "completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy",
             "template")


def _invalid(path: str, value, message: str) -> Cause:
    return Cause(path, f"Invalid value: {_show(value)}: {message}")


def _show(value) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


def _required(path: str, why: str) -> Cause:
    return Cause(path, f"Required value: {why}", "FieldValueRequired")


def _too_many(path: str, limit: int) -> Cause:
    return Cause(path, f"Too many: must have at most {limit} items", "FieldValueTooMany")


def _non_negative(spec: dict) -> list[Cause]:
    fields = ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "backoffLimitPerIndex",
              "maxFailedIndexes", "ttlSecondsAfterFinished")
    return [_invalid(f"spec.{f}", spec[f], "must be greater than or equal to 0")
            for f in fields if isinstance(spec.get(f), int) and spec[f] < 0]


def _indexed(name: str, spec: dict) -> list[Cause]:
    causes = []
    if spec.get("completionMode") != "Indexed":
        for field in ("backoffLimitPerIndex", "maxFailedIndexes", "successPolicy"):
            if spec.get(field) is not None:
                causes.append(_invalid(f"spec.{field}", spec[field] if field != "successPolicy" else "",
                                       "requires indexed completion mode"))
        return causes
    completions = spec.get("completions")
    if completions is None:
        return [_required("spec.completions", "when completion mode is Indexed")]
    if spec.get("parallelism", 1) > MAX_INDEXED_PARALLELISM:
        causes.append(_invalid("spec.parallelism", spec["parallelism"],
                               f"must be less than or equal to {MAX_INDEXED_PARALLELISM} when completion mode "
                               f"is Indexed"))
    if completions > 0 and name:
        host = f"{name}-{completions - 1}"
        if names.label_errors(host):
            causes.append(_invalid("metadata.name", name,
                                   f"will not able to create pod with invalid DNS label: {host}"))
    if spec.get("maxFailedIndexes") is not None and spec.get("backoffLimitPerIndex") is None:
        causes.append(_required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    return causes


def _rule(path: str, rule: dict, spec: dict) -> list[Cause]:
    codes, conditions = rule.get("onExitCodes"), rule.get("onPodConditions")
    if codes is not None and conditions is not None:
        return [_invalid(path, "", "specifying both OnExitCodes and OnPodConditions is not supported")]
    if codes is None and conditions is None:
        return [_invalid(path, "", "specifying one of OnExitCodes and OnPodConditions is required")]
    causes = []
    if rule.get("action") == "FailIndex" and spec.get("backoffLimitPerIndex") is None:
        causes.append(_invalid(f"{path}.action", "FailIndex", "requires the backoffLimitPerIndex to be set"))
    if codes is not None:
        values = codes.get("values") or []
        if len(values) > MAX_EXIT_CODES:
            causes.append(_too_many(f"{path}.onExitCodes.values", MAX_EXIT_CODES))
        if codes.get("operator") == "In" and 0 in values:
            causes.append(_invalid(f"{path}.onExitCodes.values[{values.index(0)}]", 0,
                                   "must not be 0 for the In operator"))
        if values != sorted(set(values)):
            causes.append(_invalid(f"{path}.onExitCodes.values", str(values), "must be ordered"))
    elif len(conditions) > MAX_PATTERNS:
        causes.append(_too_many(f"{path}.onPodConditions", MAX_PATTERNS))
    return causes


def _pod_failure_policy(spec: dict) -> list[Cause]:
    policy = spec.get("podFailurePolicy")
    if policy is None:
        return []
    rules = policy.get("rules") or []
    causes = [_too_many("spec.podFailurePolicy.rules", MAX_RULES)] if len(rules) > MAX_RULES else []
    for i, rule in enumerate(rules):
        causes += _rule(f"spec.podFailurePolicy.rules[{i}]", rule, spec)
    return causes


def _success_policy(spec: dict) -> list[Cause]:
    policy = spec.get("successPolicy")
    if policy is None or spec.get("completionMode") != "Indexed":
        return []
    rules = policy.get("rules") or []
    if not rules:
        return [_required("spec.successPolicy.rules", "at least one rules must be specified when the "
                                                      "successPolicy is specified")]
    return [_required(f"spec.successPolicy.rules[{i}]", "at least one of succeededCount or succeededIndexes must "
                                                        "be specified")
            for i, rule in enumerate(rules)
            if rule.get("succeededCount") is None and rule.get("succeededIndexes") is None]


def _selector(spec: dict) -> list[Cause]:
    """A manual selector must match the template; a generated one is made after the UID (api/batch.py)
    and checked by `generated_selector_causes`."""
    selector = spec.get("selector")
    if not spec.get("manualSelector"):
        return []
    if selector is None:
        return [_required("spec.selector", "")]
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    try:
        parsed = selectors.from_label_selector(selector)
    except ValueError as exc:
        return [_invalid("spec.selector", selector, str(exc))]
    if not parsed.empty and not parsed.matches(labels):
        return [_invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`")]
    return []


def generated_selector_causes(job: dict) -> list[Cause]:
    """After generateSelector: a selector whose controller-uid is not the Job's was not generated."""
    spec = job["spec"]
    if spec.get("manualSelector"):
        return []
    uid = job["metadata"]["uid"]
    labels = (spec["template"].get("metadata") or {}).get("labels") or {}
    if (spec.get("selector") or {}).get("matchLabels", {}).get(CONTROLLER_UID) != uid:
        return [_invalid("spec.selector", spec.get("selector"), "`selector` not auto-generated")]
    parsed = selectors.from_label_selector(spec["selector"])
    if not parsed.matches(labels):
        return [_invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`")]
    return []


def _restart_policy(spec: dict) -> list[Cause]:
    policy = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
    path = "spec.template.spec.restartPolicy"
    if spec.get("podFailurePolicy") is not None and policy != "Never":
        return [_invalid(path, policy or "", 'only "Never" is supported when podFailurePolicy is specified')]
    if policy in ("OnFailure", "Never"):
        return []
    if policy in (None, "", "Always"):
        return [_required(path, f"valid values: {RESTART_POLICIES}")]
    return [Cause(path, f'Unsupported value: "{policy}": supported values: {RESTART_POLICIES}',
                  "FieldValueNotSupported")]


def _managed_by(spec: dict) -> list[Cause]:
    """IsDomainPrefixedPath, at most 63 bytes."""
    value = spec.get("managedBy")
    if value is None:
        return []
    domain, slash, path = value.partition("/")
    if not slash or not path or names.subdomain_errors(domain):
        return [_invalid("spec.managedBy", value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    if len(value) > MAX_MANAGED_BY:
        return [Cause("spec.managedBy", f"Too long: may not be more than {MAX_MANAGED_BY} bytes",
                      "FieldValueTooLong")]
    return []


def validate_job(job: dict) -> list[Cause]:
    spec = job.get("spec") or {}
    name = (job.get("metadata") or {}).get("name") or ""
    causes = _non_negative(spec) + _indexed(name, spec) + _pod_failure_policy(spec) + _success_policy(spec)
    return causes + _selector(spec) + _restart_policy(spec) + _managed_by(spec)  # api/validation.py adds the template's pod spec


SCHEDULING_DIRECTIVES = ("nodeSelector", "affinity", "tolerations", "schedulingGates")


def _fixed(old: dict, template: dict | None) -> dict:
    """The part of a template an update may not change: all of it, except — while the Job is suspended
    and has never started (AllowMutableSchedulingDirectives) — its labels, annotations and scheduling
    directives."""
    template = dict(template or {})
    if (old.get("spec") or {}).get("suspend") and not (old.get("status") or {}).get("startTime"):
        template["metadata"] = {k: v for k, v in (template.get("metadata") or {}).items()
                                if k not in ("labels", "annotations")}
        template["spec"] = {k: v for k, v in (template.get("spec") or {}).items() if k not in SCHEDULING_DIRECTIVES}
    return template


def job_update(old: dict, new: dict) -> list[Cause]:
    """ValidateJobSpecUpdate: the immutable fields; `completions` only with parallelism in Indexed mode."""
    before, after = old.get("spec") or {}, new.get("spec") or {}
    causes = [_invalid(f"spec.{f}", after.get(f), "field is immutable") for f in IMMUTABLE
              if f != "template" and before.get(f) != after.get(f)]
    if _fixed(old, before.get("template")) != _fixed(old, after.get("template")):
        causes.append(_invalid("spec.template", after.get("template"), "field is immutable"))
    if before.get("completions") != after.get("completions"):
        indexed = after.get("completionMode") == "Indexed"
        if not indexed:
            causes.append(_invalid("spec.completions", after.get("completions"), "field is immutable"))
        elif after.get("parallelism") != after.get("completions"):
            causes.append(_invalid("spec.completions", after.get("completions"),
                                   "can only be modified in tandem with spec.parallelism"))
    return causes


def _true(status: dict, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True" for c in status.get("conditions") or [])


def _omitted(path: str, message: str) -> Cause:
    return Cause(path, f"Invalid value: {message}")


def _finished_rules(status: dict) -> list[Cause]:
    """ValidateJobUpdateStatus's options as Kubernetes 1.31+ sets them all."""
    complete, failed = _true(status, "Complete"), _true(status, "Failed")
    causes = []
    if complete and failed:
        causes.append(_omitted("status.conditions", "cannot set Complete=True and Failed=true conditions"))
    if complete and _true(status, "FailureTarget"):
        causes.append(_omitted("status.conditions", "cannot set Complete=True and FailureTarget=true conditions"))
    if failed and not _true(status, "FailureTarget"):
        causes.append(_omitted("status.conditions",
                               "cannot set Failed=True condition without the FailureTarget=true condition"))
    if complete and not _true(status, "SuccessCriteriaMet"):
        causes.append(_omitted("status.conditions",
                               "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
    if status.get("completionTime") and not complete:
        causes.append(_invalid("status.completionTime", status["completionTime"],
                               "cannot set completionTime when there is no Complete=True condition"))
    if complete and not status.get("completionTime"):
        causes.append(Cause("status.completionTime", "Required value: completionTime is required for Complete jobs",
                            "FieldValueRequired"))
    if status.get("completionTime") and status.get("startTime") and \
            seconds(status["completionTime"]) < seconds(status["startTime"]):
        causes.append(_invalid("status.completionTime", status["completionTime"],
                               "completionTime cannot be set before startTime"))
    if complete or failed:
        for field in ("active", "terminating"):
            if status.get(field):
                causes.append(_invalid(f"status.{field}", status[field], f"{field}>0 is invalid for finished job"))
        if status.get("uncountedTerminatedPods") and any(status["uncountedTerminatedPods"].values()):
            causes.append(_omitted("status.uncountedTerminatedPods",
                                   "uncountedTerminatedPods needs to be empty for finished job"))
    return causes


def job_status_update(old: dict, new: dict) -> list[Cause]:
    """What a status update may not do: contradictory or unfounded terminal conditions, a terminal
    condition turned off, a counter decreased, completionTime changed once set."""
    before, after = old.get("status") or {}, new.get("status") or {}
    causes = _finished_rules(after)
    for type_ in ("Failed", "Complete", "FailureTarget"):
        if _true(before, type_) and not _true(after, type_):
            causes.append(_omitted("status.conditions", f"cannot disable the terminal {type_}=True condition"))
    for counter in ("failed", "succeeded"):
        if after.get(counter, 0) < before.get(counter, 0):
            causes.append(_invalid(f"status.{counter}", after.get(counter, 0),
                                   f"cannot decrease the {counter} counter"))
    if before.get("completionTime") and after.get("completionTime") != before["completionTime"]:
        causes.append(_invalid("status.completionTime", after.get("completionTime"), "field is immutable"))
    return causes
