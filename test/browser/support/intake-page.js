// The script of the CORS test page: what an integrator's web page does with the client
// package, exposed as functions the test calls with page.evaluate. Retries are off so a
// refused request answers at once.
import { createPatientCareClient } from '/client.js';

const client = (baseUrl, apiKey) => createPatientCareClient({ baseUrl, apiKey, maxRetries: 0 });

// Headers a page can read only when the API exposes them (Access-Control-Expose-Headers).
const exposed = (response) => ({
  requestId: response.headers.get('Request-Id'),
  rateLimitLimit: response.headers.get('RateLimit-Limit'),
  version: response.headers.get('PatientCare-Version'),
});

// A request the browser refused to hand to the page (CORS) throws; report how.
async function attempt(call) {
  try {
    return await call();
  } catch (error) {
    return { failed: error?.name ?? 'Error' };
  }
}

window.patientCare = {
  tokenize: (baseUrl, apiKey, patient) =>
    attempt(async () => {
      const result = await client(baseUrl, apiKey).createToken({
        body: { type: 'patient_intake', patient },
      });
      return {
        status: result.response.status,
        token: result.data?.id ?? null,
        code: result.error?.error.code ?? null,
        ...exposed(result.response),
      };
    }),
  readPatient: (baseUrl, apiKey, id) =>
    attempt(async () => {
      const result = await client(baseUrl, apiKey).retrievePatient({ params: { path: { id } } });
      return {
        status: result.response.status,
        family: result.data?.name.family ?? null,
        code: result.error?.error.code ?? null,
        message: result.error?.error.message ?? null,
        ...exposed(result.response),
      };
    }),
};
window.patientCareReady = true;
