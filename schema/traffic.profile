share: 0.9
events: 100
versions:
  - { event: complaints.drp.finished, version: v1, events: 40 }
  - { event: internal_company.created, version: v1, events: 30 }
  - { event: contracts.terms-varied, version: v1, events: 20 }
