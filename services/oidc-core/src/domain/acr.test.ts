import {
  ACR_MFA,
  ACR_PWD,
  acrForAmr,
  claimsRequestOf,
  essentialAcrAttainable,
  essentialAcrValues,
  meetsAcr,
  meetsEssentialAcr,
  statedAcr,
} from './acr';

const essential = (acr: object) => ({ id_token: { acr: { essential: true, ...acr } } });

describe('acr values', () => {
  it('follow the amr of the login', () => {
    expect(acrForAmr(['pwd'])).toBe(ACR_PWD);
    expect(acrForAmr(['pwd', 'otp', 'mfa'])).toBe(ACR_MFA);
    expect(acrForAmr(undefined)).toBe(ACR_PWD);
  });

  it('are ordered: mfa meets pwd, pwd does not meet mfa, unknown values are never met', () => {
    expect(meetsAcr(ACR_MFA, ACR_PWD)).toBe(true);
    expect(meetsAcr(ACR_PWD, ACR_MFA)).toBe(false);
    expect(meetsAcr(ACR_MFA, 'urn:other')).toBe(false);
    expect(meetsAcr(undefined, ACR_PWD)).toBe(false);
  });

  it('only an essential request constrains the login; acr_values is voluntary', () => {
    expect(essentialAcrValues({ id_token: { acr: { values: [ACR_MFA] } } })).toBeUndefined();
    expect(essentialAcrValues(essential({ value: ACR_MFA }))).toEqual([ACR_MFA]);
    expect(meetsEssentialAcr(ACR_PWD, { id_token: { acr: { values: [ACR_MFA] } } })).toBe(true);
    expect(meetsEssentialAcr(ACR_PWD, essential({ values: [ACR_MFA] }))).toBe(false);
    expect(meetsEssentialAcr(ACR_PWD, essential({ values: [ACR_MFA, ACR_PWD] }))).toBe(true);
    expect(essentialAcrAttainable(essential({ values: ['urn:other'] }))).toBe(false);
    expect(essentialAcrAttainable(essential({ value: ACR_MFA }))).toBe(true);
  });

  it('the stated acr is a requested value when essential, else what the login did', () => {
    expect(statedAcr(ACR_MFA, essential({ value: ACR_PWD }))).toBe(ACR_PWD);
    expect(statedAcr(ACR_MFA, essential({ values: [ACR_PWD, ACR_MFA] }))).toBe(ACR_MFA);
    expect(statedAcr(ACR_MFA, { id_token: { acr: { values: [ACR_PWD] } } })).toBe(ACR_MFA);
    expect(statedAcr(ACR_PWD, undefined)).toBe(ACR_PWD);
  });

  it('reads the request from stored authorization parameters, acr_values replacing the claims parameter acr', () => {
    expect(claimsRequestOf({ claims: JSON.stringify(essential({ value: ACR_MFA })) })).toEqual(
      essential({ value: ACR_MFA }),
    );
    expect(
      claimsRequestOf({
        claims: JSON.stringify({ id_token: { email: null, acr: { essential: true, value: ACR_MFA } } }),
        acr_values: ACR_PWD,
      }),
    ).toEqual({
      id_token: { email: null, acr: { values: [ACR_PWD] } },
    });
    expect(claimsRequestOf({ claims: 'not json' })).toEqual({});
  });
});
