# A build base that trusts the site's TLS-intercepting proxy, as corporate base images do: the machine's CA
# bundle copied in and named by NODE_EXTRA_CA_CERTS (Node.js, npm) and SSL_CERT_FILE (OpenSSL tools). Only build
# stages use it; the worker image's final stage starts from the clean Node.js base.
ARG BASE
FROM ${BASE}
COPY site-ca-bundle.crt /usr/local/share/site-ca/ca-bundle.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/site-ca/ca-bundle.crt \
    SSL_CERT_FILE=/usr/local/share/site-ca/ca-bundle.crt
