"""Kubernetes' IP, CIDR, Format and Semver CEL libraries: the examples of their Go doc comments
(apiserver `pkg/cel/library/{ip,cidr,format,semverlib}.go`) and their error words."""
from __future__ import annotations

import pytest

from api.cel import EvalError, compile_cel
from api.names import dns1035_errors

VAP = ("object", "oldObject", "params", "request", "namespaceObject", "variables")


def run(expression: str, variables: dict | None = None):
    return compile_cel(expression, VAP).evaluate(variables or {})


@pytest.mark.parametrize("expression", [
    # ip.go
    "ip('127.0.0.1').family() == 4", "ip('::1').family() == 6",
    "isIP('127.0.0.1')", "isIP('::1')", "!isIP('127.0.0.256')", "!isIP(':::1')",
    "!isIP('::ffff:1.2.3.4')", "!isIP('fe80::1%eth0')", "!isIP('01.2.3.4')",
    "ip.isCanonical('127.0.0.1')", "ip.isCanonical('2001:db8::abcd')", "!ip.isCanonical('2001:DB8::ABCD')",
    "!ip.isCanonical('2001:db8::0:0:0:abcd')",
    "ip('0.0.0.0').isUnspecified()", "!ip('127.0.0.1').isUnspecified()", "ip('::').isUnspecified()",
    "!ip('::1').isUnspecified()", "ip('127.0.0.1').isLoopback()", "!ip('192.168.0.1').isLoopback()",
    "ip('::1').isLoopback()", "!ip('2001:db8::abcd').isLoopback()",
    "ip('224.0.0.1').isLinkLocalMulticast()", "!ip('224.0.1.1').isLinkLocalMulticast()",
    "ip('ff02::1').isLinkLocalMulticast()", "!ip('fd00::1').isLinkLocalMulticast()",
    "ip('169.254.169.254').isLinkLocalUnicast()", "!ip('192.168.0.1').isLinkLocalUnicast()",
    "ip('fe80::1').isLinkLocalUnicast()", "!ip('fd80::1').isLinkLocalUnicast()",
    "ip('192.168.0.1').isGlobalUnicast()", "!ip('255.255.255.255').isGlobalUnicast()",
    "ip('2001:db8::abcd').isGlobalUnicast()", "!ip('ff00::1').isGlobalUnicast()",
    "ip('::1') == ip('0:0::1')", "string(ip('2001:DB8::1')) == '2001:db8::1'",
    # cidr.go
    "isCIDR('192.168.0.0/16')", "isCIDR('::1/128')", "!isCIDR('192.168.0.0/33')", "!isCIDR('::1/129')",
    "isCIDR('192.168.0.1/16')", "!isCIDR('192.168.0.0')", "!isCIDR('::ffff:1.2.3.4/120')",
    "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", "!cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))",
    "cidr('192.168.0.0/24').containsIP('192.168.0.1')", "!cidr('192.168.0.0/24').containsIP('192.168.1.1')",
    "cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))",
    "!cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))",
    "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')", "!cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24')",
    "!cidr('192.168.0.0/24').containsCIDR('192.168.0.0/16')",
    "cidr('192.168.0.1/24').ip() == ip('192.168.0.1')", "cidr('192.168.0.1/24').ip().family() == 4",
    "cidr('::1/128').ip() == ip('::1')", "cidr('::1/128').ip().family() == 6",
    "cidr('192.168.0.0/24').masked() == cidr('192.168.0.0/24')",
    "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
    "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()",
    "cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()",
    "cidr('192.168.0.0/16').prefixLength() == 16", "cidr('::1/128').prefixLength() == 128",
    "string(cidr('2001:DB8::/32')) == '2001:db8::/32'",
])
def test_ip_and_cidr(expression):
    assert run(expression) is not None and bool(run(expression)) is True


@pytest.mark.parametrize("expression,message", [
    pytest.param("ip('127.0.0.256')", 'IP Address "127.0.0.256" parse error during conversion from string: '
                 'ParseAddr("127.0.0.256"): IPv4 field has value >255', id="ip-octet"),
    pytest.param("ip('::ffff:1.2.3.4')", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed', id="ip-4in6"),
    pytest.param("ip('fe80::1%eth0')", 'IP address "fe80::1%eth0" with zone value is not allowed', id="ip-zone"),
    pytest.param("ip('1.2.3.04')", 'ParseAddr("1.2.3.04"): IPv4 field has octet with leading zero', id="ip-zero"),
    pytest.param("ip.isCanonical('x')", 'IP Address "x" parse error during conversion from string: '
                 'ParseAddr("x"): unable to parse IP', id="canonical-bad"),
    pytest.param("cidr('192.168.0.0')", "network address parse error during conversion from string: network "
                 "address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0\"): no '/'",
                 id="cidr-no-slash"),
    pytest.param("cidr('10.0.0.0/33')", 'netip.ParsePrefix("10.0.0.0/33"): prefix length out of range',
                 id="cidr-bits"),
    pytest.param("cidr('10.0.0.0/x')", 'netip.ParsePrefix("10.0.0.0/x"): bad bits after slash: "x"',
                 id="cidr-bad-bits"),
    pytest.param("cidr('::ffff:1.2.3.4/120')", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4/120" is not allowed',
                 id="cidr-4in6"),
])
def test_ip_and_cidr_errors(expression, message):
    with pytest.raises(EvalError) as err:
        run(expression)
    assert message in str(err.value)


LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
         "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


@pytest.mark.parametrize("expression,want", [
    pytest.param("format.dns1123Label().validate('my-label-name')", None, id="label-ok"),
    pytest.param("format.dns1123Label().validate('My_Label')", [LABEL], id="label-bad"),
    pytest.param("format.named('dns1123Label').value().validate('a')", None, id="named"),
    pytest.param("format.dns1123Label().validate('" + "a" * 64 + "')",
                 ["must be no more than 63 characters"], id="label-long"),
    pytest.param("format.dns1123Subdomain().validate('apiextensions.k8s.io')", None, id="subdomain"),
    pytest.param("format.dns1035Label().validate('1abc')", list(dns1035_errors("1abc")), id="dns1035"),
    pytest.param("format.qualifiedName().validate('apiextensions.k8s.io/v1beta1')", None, id="qualified"),
    pytest.param("format.dns1123LabelPrefix().validate('my-label-prefix-')", None, id="label-prefix"),
    pytest.param("format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-')", None, id="subdomain-prefix"),
    pytest.param("format.dns1035LabelPrefix().validate('my-label-prefix-')", None, id="dns1035-prefix"),
    pytest.param("format.labelValue().validate('')", None, id="label-value-empty"),
    pytest.param("format.uri().validate('http://example.com')", None, id="uri"),
    pytest.param("format.uri().validate('example')", ['parse "example": invalid URI for request'], id="uri-bad"),
    pytest.param("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')", None, id="uuid"),
    pytest.param("format.uuid().validate('123e4567')", ["does not match the UUID format"], id="uuid-bad"),
    pytest.param("format.byte().validate('aGVsbG8=')", None, id="byte"),
    pytest.param("format.byte().validate('aGVsbG8')", ["invalid base64"], id="byte-bad"),
    pytest.param("format.date().validate('2021-01-01')", None, id="date"),
    pytest.param("format.date().validate('2021-02-30')", ["invalid date"], id="date-bad"),
    pytest.param("format.datetime().validate('2021-01-01T00:00:00Z')", None, id="datetime"),
    pytest.param("format.datetime().validate('2021-01-01')", ["invalid datetime"], id="datetime-bad"),
])
def test_formats(expression, want):
    result = run(expression)
    assert (result.held if result.present else None) == want


def test_format_named_is_optional():
    assert run("format.named('dns1123Label').hasValue() && !format.named('nope').hasValue()")


@pytest.mark.parametrize("expression", [
    "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3",
    "isSemver('0.1.0-alpha.1')", "!isSemver('200K')", "!isSemver('Three')", "!isSemver('v1.0')",
    "isSemver('v1.0', true)", "semver('v1.0.0', true) == semver('1.0.0')", "semver('1.0', true) == semver('1.0.0')",
    "semver('01.01.01', true) == semver('1.1.1')",
    "semver('1.2.3').compareTo(semver('1.2.3')) == 0", "semver('1.2.3').compareTo(semver('2.0.0')) == -1",
    "semver('1.2.3').compareTo(semver('0.1.2')) == 1", "semver('1.10.0').isGreaterThan(semver('1.9.9'))",
    "semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))",
    "semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta'))",
    "semver('1.0.0-2').isLessThan(semver('1.0.0-10'))", "semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))",
    "semver('1.0.0+build.1') == semver('1.0.0+build.2')",
    "quantity('1Gi').isGreaterThan(quantity('1Mi')) && semver('2.0.0').isGreaterThan(semver('1.0.0'))",
])
def test_semver(expression):
    assert run(expression)


@pytest.mark.parametrize("expression,message", [
    pytest.param("semver('1.2')", "No Major.Minor.Patch elements found", id="short"),
    pytest.param("semver('')", "Version string empty", id="empty"),
    pytest.param("semver('01.2.3')", 'Major number must not contain leading zeroes "01"', id="leading-zero"),
    pytest.param("semver('1.x.3')", 'Invalid character(s) found in minor number "x"', id="minor"),
    pytest.param("semver('1.2.3-')", "Prerelease is empty", id="empty-prerelease"),
    pytest.param("semver('1.2-rc', true)", "short version cannot contain PreRelease/Build meta data", id="short-pre"),
])
def test_semver_errors(expression, message):
    with pytest.raises(EvalError) as err:
        run(expression)
    assert message in str(err.value)
